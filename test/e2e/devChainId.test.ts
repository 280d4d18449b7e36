/**
 * `anvil_setChainId` on the compiled binary: the new id is in force from the next block on, while
 * blocks sealed before keep theirs, so their transactions still decode and replay (the CHAINID
 * opcode answers the id the block was sealed with), across a crash and restart too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type StartedNode, signTransfer, startNode } from './harness.ts'

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const TARGET = '0x000000000000000000000000000000000000c0de'
/** Runtime code: stores CHAINID at slot 0 (CHAINID, PUSH1 0, SSTORE, STOP). */
const CHAIN_ID_CODE = '0x4660005500'
const NEW_ID = 4242
const APIS = 'ETH,NET,WEB3,EVM,ANVIL,DEBUG,TRACE'

let node: StartedNode

async function receipt(n: StartedNode, hash: string): Promise<{ status: string; blockNumber: string }> {
  for (let i = 0; i < 200; i++) {
    const r = await n.rpc<{ status: string; blockNumber: string } | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await Bun.sleep(20)
  }
  throw new Error(`no receipt for ${hash}`)
}

/** The value a replay of `hash` stores at TARGET's slot 0: the chain id the replay runs under. */
async function replayedChainId(n: StartedNode, hash: string): Promise<number> {
  const diff = await n.rpc<{ post: Record<string, { storage?: Record<string, string> }> }>('debug_traceTransaction', [
    hash,
    { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
  ])
  const stored = diff.post[TARGET]?.storage?.[`0x${'00'.repeat(32)}`]
  const parity = await n.rpc<{ stateDiff: Record<string, { storage: Record<string, { '*'?: { to: string } }> }> }>(
    'trace_replayTransaction',
    [hash, ['stateDiff']],
  )
  const viaTrace = parity.stateDiff[TARGET]?.storage[`0x${'00'.repeat(32)}`]?.['*']?.to
  expect(viaTrace).toBe(stored)
  return Number(stored)
}

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-http-api', APIS, '--rpc-ws-enabled=false'] })
})
afterAll(async () => {
  await node?.cleanup()
})

describe('anvil_setChainId', () => {
  let oldTx: string
  let newTx: string

  it('changes eth_chainId from the next block on; transactions must carry the new id', async () => {
    await node.rpc('anvil_setCode', [TARGET, CHAIN_ID_CODE])
    oldTx = await node.rpc<string>('eth_sendRawTransaction', [
      await signTransfer(KEY, { to: TARGET, gas: 50_000n, nonce: 0 }),
    ])
    await receipt(node, oldTx)
    expect(await node.rpc('net_version')).toBe('2018')

    expect(await node.rpc('anvil_setChainId', [NEW_ID])).toBeNull()
    expect(await node.rpc('eth_chainId')).toBe(`0x${NEW_ID.toString(16)}`)
    expect(await node.rpc('net_version')).toBe('2018')
    const info = await node.rpc<{ environment: { chainId: number } }>('anvil_nodeInfo')
    expect(info.environment.chainId).toBe(NEW_ID)
    const meta = await node.rpc<{ chainId: number }>('anvil_metadata')
    expect(meta.chainId).toBe(NEW_ID)

    const stale = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendRawTransaction',
      params: [await signTransfer(KEY, { to: TARGET, gas: 50_000n, nonce: 1 })],
    })
    expect(stale.json.error?.message).toContain('chain')

    newTx = await node.rpc<string>('eth_sendRawTransaction', [
      await signTransfer(KEY, { to: TARGET, gas: 50_000n, nonce: 1, chainId: NEW_ID }),
    ])
    expect((await receipt(node, newTx)).status).toBe('0x1')
    expect(await node.rpc('eth_getStorageAt', [TARGET, '0x0', 'latest'])).toBe(
      `0x${NEW_ID.toString(16).padStart(64, '0')}`,
    )
  })

  it('keeps each block’s transactions under the id they were signed with', async () => {
    const old = await node.rpc<{ chainId: string }>('eth_getTransactionByHash', [oldTx])
    const fresh = await node.rpc<{ chainId: string }>('eth_getTransactionByHash', [newTx])
    expect(old.chainId).toBe('0x539')
    expect(fresh.chainId).toBe(`0x${NEW_ID.toString(16)}`)
    expect(await replayedChainId(node, oldTx)).toBe(1337)
    expect(await replayedChainId(node, newTx)).toBe(NEW_ID)
  })

  it('keeps the schedule across a crash and a restart', async () => {
    await node.stop('SIGKILL')
    node = await startNode({ dataPath: node.dataPath, args: ['--rpc-http-api', APIS, '--rpc-ws-enabled=false'] })
    expect(await node.rpc('eth_chainId')).toBe(`0x${NEW_ID.toString(16)}`)
    expect(await replayedChainId(node, oldTx)).toBe(1337)
    expect(await replayedChainId(node, newTx)).toBe(NEW_ID)
    const next = await node.rpc<string>('eth_sendRawTransaction', [
      await signTransfer(KEY, { to: TARGET, gas: 50_000n, nonce: 2, chainId: NEW_ID }),
    ])
    expect((await receipt(node, next)).status).toBe('0x1')
  })

  it('refuses an id of 0', async () => {
    const res = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'anvil_setChainId', params: ['0x0'] })
    expect(res.json.error.code).toBe(-32602)
  })
})
