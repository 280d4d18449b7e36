/**
 * KZG never stalls a request. The executable carries the mainnet trusted setup loaded already
 * (`make build`), so a node has KZG within about 100 ms of first needing it; a setup given with
 * `--kzg-trusted-setup` is loaded on first need in a worker thread (15 s or more of WebAssembly),
 * and while it loads every other request is served. Garbage blob transactions and calls with blob
 * fields answer at once without KZG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// kzg-wasm's copy of the mainnet setup (the ceremony's output), written out in the file format below.
import mainnetSetup from '../../node_modules/kzg-wasm/dist/esm/trustedSetup.js'
import { runToExit, type StartedNode, startNode } from './harness.ts'

// EIP-4844's example: the commitment and proof of a blob whose polynomial is 0 at z, with y = 0.
const POINT_EVALUATION = `0x01e798154708fe7789429634053cbf9f99b619f9f084048927333fce637f549b564c0a11a0f704f4fc3e8acfe0f8245f0ad1347b378fbf96e206da11a5d3630624d25032e67a7e6a4910df5834b8fe70e6bcfeeac0352434196bdf4b2485d5a18f59a8d2a1a625a17f3fea0fe5eb8c896db3764f3185481bc22f91b4aaffcca25f26936857bc3a7c2539ea8ec3a952b7873033e038326e87ed3e1276fd140253fa08e9fc25fb2d9a98527fc22a2c9612fbeafdad446cbc7bcdbdcd780af2c16a`
const PRECOMPILE = '0x000000000000000000000000000000000000000a'
const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const TO = '0x000000000000000000000000000000000000bEEF'
const BLOB_CALL = { from: FROM, to: TO, blobVersionedHashes: [`0x01${'00'.repeat(31)}`], maxFeePerBlobGas: '0x10' }
let node: StartedNode

const dir = mkdtempSync(join(tmpdir(), 'basalt-kzg-'))
/** Every node started here. */
const started: StartedNode[] = []
async function start(args: string[] = []): Promise<StartedNode> {
  const n = await startNode({ args: ['--rpc-ws-enabled=false', ...args] })
  started.push(n)
  return n
}

/** `setup` in the ceremony's text format (c-kzg-4844's trusted_setup.txt), as Besu's --kzg-trusted-setup reads it. */
function setupFile(name: string, setup: { g1_lagrange: string; g2_monomial: string; g1_monomial: string }): string {
  const lines = (hex: string, size: number) => hex.match(new RegExp(`.{${size}}`, 'g')) ?? []
  const text = ['4096', '65', ...lines(setup.g1_lagrange, 96), ...lines(setup.g2_monomial, 192)]
  text.push(...lines(setup.g1_monomial, 96), '')
  const file = join(dir, name)
  writeFileSync(file, text.join('\n'))
  return file
}

beforeAll(async () => {
  node = await start()
})
afterAll(async () => {
  for (const n of started.reverse()) await n.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const startedMs = performance.now()
  const value = await fn()
  return [value, performance.now() - startedMs]
}

const isReady = (n: StartedNode) => /KZG trusted setup (loaded|restored)/.test(n.output())

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
    expect(isReady(node)).toBe(false)
  })

  it('answers a point-evaluation call at once from the setup the executable carries', async () => {
    const [out, ms] = await timed(() =>
      node.rpc<string>('eth_call', [{ to: PRECOMPILE, data: POINT_EVALUATION }, 'latest']),
    )
    // FIELD_ELEMENTS_PER_BLOB (4096) and the BLS modulus.
    expect(out).toBe(
      '0x000000000000000000000000000000000000000000000000000000000000100073eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001',
    )
    expect(node.output()).toContain('KZG trusted setup restored')
    expect(node.output()).not.toContain('KZG trusted setup loaded')
    // Not the load (15 s or more): the restore is about 100 ms; the bound leaves a loaded machine room.
    expect(ms).toBeLessThan(5_000)
  })

  it('serves other requests while a point-evaluation call waits for a --kzg-trusted-setup to load, then answers it', async () => {
    const file = setupFile('trusted_setup.txt', mainnetSetup)
    const loading = await start(['--kzg-trusted-setup', file])
    const call = loading.rpc<string>('eth_call', [{ to: PRECOMPILE, data: POINT_EVALUATION }, 'latest'])
    let slowestMs = 0
    let answered = 0
    for (let i = 0; i < 50 && !isReady(loading); i++) {
      const [, ms] = await timed(() => loading.rpc('eth_blockNumber'))
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
    expect(loading.output()).toContain(`KZG trusted setup loaded`)
    expect(loading.output()).toContain(`from=${file}`)
    const bad = await loading.rpcRaw({
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

  it('refuses a --kzg-trusted-setup file that is no setup at start, naming the file and the line', async () => {
    const args = (file: string) => ['--rpc-http-port', '0', '--rpc-ws-enabled=false', '--kzg-trusted-setup', file]
    const missing = join(dir, 'missing.txt')
    const absent = await runToExit(args(missing))
    expect(absent.code).toBe(2)
    expect(absent.stderr).toStartWith(`basalt: Invalid value for option --kzg-trusted-setup: cannot read ${missing}: `)
    // The older format, without the G1 monomial points that EIP-7594's cell proofs need.
    const older = setupFile('older.txt', { ...mainnetSetup, g1_monomial: '' })
    expect(await runToExit(args(older))).toEqual({
      code: 2,
      stderr: `basalt: Invalid value for option --kzg-trusted-setup: ${older}: the file ends before its G1 monomial points (the older format without them: use a current file)`,
    })
    const garbled = setupFile('garbled.txt', { ...mainnetSetup, g2_monomial: `zz${mainnetSetup.g2_monomial.slice(2)}` })
    expect(await runToExit(args(garbled))).toEqual({
      code: 2,
      stderr: `basalt: Invalid value for option --kzg-trusted-setup: ${garbled}: line 4099 is no G2 monomial point (96 bytes of hex)`,
    })
  })

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
