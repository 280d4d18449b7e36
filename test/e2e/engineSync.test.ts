/**
 * Payloads out of order and invalid ancestry, across two nodes on the same genesis: node A builds a
 * chain, node B receives its payloads as a consensus client would hand them over after a gap
 * (SYNCING, then ACCEPTED, then VALID once the gap is filled), and records invalid blocks where
 * debug_getBadBlocks shows them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type EngineNode, rehash, startEngineNode, ZERO32 } from './engineHarness.ts'

const BEACON_ROOT = `0x${'be'.repeat(32)}`

/** An ExecutionPayloadV3 as JSON; only these fields are read here. */
interface Payload {
  blockHash: string
  blockNumber: string
  [field: string]: unknown
}
let a: EngineNode
let b: EngineNode

beforeAll(async () => {
  a = await startEngineNode()
  b = await startEngineNode({
    pragueTime: a.pragueTime,
    osakaTime: a.osakaTime,
    args: ['--rpc-http-api', 'ETH,DEBUG'],
  })
})
afterAll(async () => {
  await Promise.all([a?.node.cleanup(), b?.node.cleanup()])
})

function fcu(en: EngineNode, head: string, attributes: unknown = null) {
  return en.rpc('engine_forkchoiceUpdatedV3', [
    { headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
    attributes,
  ])
}

/** A Cancun payload that node A builds on `parentHash`, imports and makes its head. */
async function buildOnA(parentHash: string, timestamp: number): Promise<Payload> {
  const { payloadId } = await fcu(a, parentHash, {
    timestamp: `0x${timestamp.toString(16)}`,
    prevRandao: `0x${'22'.repeat(32)}`,
    suggestedFeeRecipient: `0x${'fe'.repeat(20)}`,
    withdrawals: [],
    parentBeaconBlockRoot: BEACON_ROOT,
  })
  const { executionPayload } = await a.rpc<{ executionPayload: Payload }>('engine_getPayloadV3', [payloadId])
  expect((await a.rpc('engine_newPayloadV3', [executionPayload, [], BEACON_ROOT])).status).toBe('VALID')
  expect((await fcu(a, executionPayload.blockHash)).payloadStatus.status).toBe('VALID')
  return executionPayload
}

const newPayload = (en: EngineNode, payload: Payload) => en.rpc('engine_newPayloadV3', [payload, [], BEACON_ROOT])

/** `payload` with header fields changed and its block hash recomputed. */
async function altered(payload: Payload, change: Record<string, string>): Promise<Payload> {
  const block = await a.rpc('eth_getBlockByHash', [payload.blockHash, false])
  return { ...payload, ...change, blockHash: rehash(block, change) }
}

describe('payloads whose parent is missing', () => {
  it('answers SYNCING, then ACCEPTED for a child of a held payload, and executes both once the gap is filled', async () => {
    const genesis = await a.rpc('eth_getBlockByNumber', ['0x0', false])
    expect((await b.rpc('eth_getBlockByNumber', ['0x0', false])).hash).toBe(genesis.hash)
    const t = Math.floor(Date.now() / 1000)
    const p1 = await buildOnA(genesis.hash, t)
    const p2 = await buildOnA(p1.blockHash, t + 1)
    const p3 = await buildOnA(p2.blockHash, t + 2)

    expect(await newPayload(b, p2)).toEqual({ status: 'SYNCING', latestValidHash: null, validationError: null })
    expect(await newPayload(b, p3)).toEqual({ status: 'ACCEPTED', latestValidHash: null, validationError: null })
    expect((await fcu(b, p3.blockHash)).payloadStatus.status).toBe('SYNCING')
    expect(await b.rpc('eth_getBlockByHash', [p3.blockHash, false])).toBeNull()

    expect(await newPayload(b, p1)).toEqual({ status: 'VALID', latestValidHash: p1.blockHash, validationError: null })
    expect((await fcu(b, p3.blockHash)).payloadStatus).toEqual({
      status: 'VALID',
      latestValidHash: p3.blockHash,
      validationError: null,
    })
    expect((await b.rpc('eth_getBlockByNumber', ['latest', false])).hash).toBe(p3.blockHash)
    expect(await newPayload(b, p3)).toEqual({ status: 'VALID', latestValidHash: p3.blockHash, validationError: null })
  })
})

describe('invalid payloads', () => {
  it('lists an invalid payload and a held descendant of it in debug_getBadBlocks, both INVALID', async () => {
    const head = await a.rpc('eth_getBlockByNumber', ['latest', false])
    const p4 = await buildOnA(head.hash, Number(head.timestamp) + 1)
    const p5 = await buildOnA(p4.blockHash, Number(head.timestamp) + 2)
    const bad = await altered(p4, { stateRoot: `0x${'12'.repeat(32)}` })
    const child = await altered(p5, { parentHash: bad.blockHash })

    expect((await newPayload(b, child)).status).toBe('SYNCING')
    const r = await newPayload(b, bad)
    expect(r.status).toBe('INVALID')
    expect(r.latestValidHash).toBe(head.hash)
    expect(r.validationError).toContain('invalid block stateRoot')
    expect(await newPayload(b, child)).toMatchObject({ status: 'INVALID', latestValidHash: head.hash })
    const grandchild = await altered(await buildOnA(p5.blockHash, Number(head.timestamp) + 3), {
      parentHash: child.blockHash,
    })
    expect(await newPayload(b, grandchild)).toEqual({
      status: 'INVALID',
      latestValidHash: head.hash,
      validationError: 'Block descends from an invalid block',
    })
    expect((await fcu(b, child.blockHash)).payloadStatus.status).toBe('INVALID')
    expect((await b.rpc('eth_getBlockByNumber', ['latest', false])).hash).toBe(head.hash)

    const badBlocks = await b.node.rpc<{ hash: string; block: { number: string } | null }[]>('debug_getBadBlocks')
    const hashes = badBlocks.map((x) => x.hash)
    expect(hashes).toContain(bad.blockHash)
    expect(hashes).toContain(grandchild.blockHash)
    expect(badBlocks.find((x) => x.hash === bad.blockHash)?.block?.number).toBe(bad.blockNumber)
  })
})
