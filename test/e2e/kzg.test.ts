/**
 * KZG never stalls a request. Its trusted setup loads on first need in a worker thread (15 s or
 * more of WebAssembly): garbage blob transactions and calls with blob fields answer at once without
 * it, and while it loads every other request is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { type StartedNode, startNode } from './harness.ts'

// EIP-4844's example: the commitment and proof of a blob whose polynomial is 0 at z, with y = 0.
const POINT_EVALUATION = `0x01e798154708fe7789429634053cbf9f99b619f9f084048927333fce637f549b564c0a11a0f704f4fc3e8acfe0f8245f0ad1347b378fbf96e206da11a5d3630624d25032e67a7e6a4910df5834b8fe70e6bcfeeac0352434196bdf4b2485d5a18f59a8d2a1a625a17f3fea0fe5eb8c896db3764f3185481bc22f91b4aaffcca25f26936857bc3a7c2539ea8ec3a952b7873033e038326e87ed3e1276fd140253fa08e9fc25fb2d9a98527fc22a2c9612fbeafdad446cbc7bcdbdcd780af2c16a`
const PRECOMPILE = '0x000000000000000000000000000000000000000a'
const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const TO = '0x000000000000000000000000000000000000bEEF'
const BLOB_CALL = { from: FROM, to: TO, blobVersionedHashes: [`0x01${'00'.repeat(31)}`], maxFeePerBlobGas: '0x10' }
let node: StartedNode

/** Every node started here, the first holding the data path the others reuse. */
const started: StartedNode[] = []
async function start(dataPath?: string): Promise<StartedNode> {
  const n = await startNode({ dataPath, args: ['--rpc-ws-enabled=false'] })
  started.push(n)
  return n
}

beforeAll(async () => {
  node = await start()
})
afterAll(async () => {
  for (const n of started.reverse()) await n.cleanup()
})

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const startedMs = performance.now()
  const value = await fn()
  return [value, performance.now() - startedMs]
}

const isLoaded = () => node.output().includes('KZG trusted setup loaded')

describe('KZG off the request path', () => {
  it('refuses a 5-byte blob transaction at once with -32602, without loading KZG', async () => {
    const [res, ms] = await timed(() =>
      node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x03deadbeef'] }),
    )
    // Besu's text for an undecodable transaction, not the KZG refusal.
    expect(res.json.error).toEqual({ code: -32602, message: 'Invalid transaction params (missing or incorrect)' })
    expect(ms).toBeLessThan(1_000)
  })

  it('answers eth_call, eth_estimateGas and eth_createAccessList with blob fields at once', async () => {
    const [call, ms] = await timed(() => node.rpc('eth_call', [BLOB_CALL, 'latest']))
    expect(call).toBe('0x')
    expect(ms).toBeLessThan(1_000)
    expect(await node.rpc('eth_estimateGas', [BLOB_CALL, 'latest'])).toBe('0x5208')
    expect(await node.rpc('eth_createAccessList', [BLOB_CALL, 'latest'])).toEqual({ accessList: [], gasUsed: '0x5208' })
    expect(isLoaded()).toBe(false)
  })

  it('serves other requests while a point-evaluation call waits for KZG, then answers it', async () => {
    const call = node.rpc<string>('eth_call', [{ to: PRECOMPILE, data: POINT_EVALUATION }, 'latest'])
    let slowestMs = 0
    let answered = 0
    for (let i = 0; i < 50 && !isLoaded(); i++) {
      const [, ms] = await timed(() => node.rpc('eth_blockNumber'))
      slowestMs = Math.max(slowestMs, ms)
      answered++
      await Bun.sleep(100)
    }
    // FIELD_ELEMENTS_PER_BLOB (4096) and the BLS modulus.
    expect(await call).toBe(
      '0x000000000000000000000000000000000000000000000000000000000000100073eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001',
    )
    expect(answered).toBeGreaterThan(0)
    expect(slowestMs).toBeLessThan(1_000)
    const bad = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: PRECOMPILE, data: '0x' }],
    })
    // Besu's point-evaluation precompile halts on a bad input with PRECOMPILE_ERROR.
    expect(bad.json.error).toEqual({
      code: -32000,
      message: 'Transaction processing could not be completed due to an exception: Precompile error',
    })
  }, 150_000)

  it('restores KZG from the data path after a restart instead of loading it again', async () => {
    // The node writes the loaded setup (16 MiB) after it answered: wait for it, generously (set-up,
    // not the subject); the restart's 5 s bound below is about the restore.
    const cache = join(node.dataPath, 'kzg-setup.mem')
    const deadline = Date.now() + 60_000
    for (let i = 0; i < 1200 && !existsSync(cache) && Date.now() < deadline; i++) await Bun.sleep(50)
    expect(existsSync(cache)).toBe(true)
    await node.stop()
    const restarted = await start(node.dataPath)
    try {
      const [out, ms] = await timed(() =>
        restarted.rpc<string>('eth_call', [{ to: PRECOMPILE, data: POINT_EVALUATION }, 'latest']),
      )
      expect(out).toEndWith('73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001')
      expect(restarted.output()).toContain('KZG trusted setup restored')
      expect(ms).toBeLessThan(5_000)
    } finally {
      await restarted.stop()
    }
    node = await start(node.dataPath)
  }, 120_000)

  it('simulates a block with a blob-carrying call', async () => {
    const [blocks] = await timed(() =>
      node.rpc<{ calls: { status: string }[] }[]>('eth_simulateV1', [
        { blockStateCalls: [{ calls: [BLOB_CALL] }] },
        'latest',
      ]),
    )
    expect(blocks[0].calls[0].status).toBe('0x1')
  }, 150_000)
})
