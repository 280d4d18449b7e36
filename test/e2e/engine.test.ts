/**
 * The Engine API driven as a consensus client drives it: JWT authentication, payloads built and
 * imported through Cancun (with a blob transaction), Prague (with an execution request) and Osaka,
 * an invalid payload, errors per version, and a reorg to a side branch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, type Hex, hexToBytes, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ACCOUNTS, type EngineNode, jwt, rehash, startEngineNode, ZERO32 } from './engineHarness.ts'

let en: EngineNode
const BEACON_ROOT = `0x${'be'.repeat(32)}`
const WITHDRAWAL_REQUESTS = '0x00000961ef480eb55e80d19ad83579a64c007002'

beforeAll(async () => {
  en = await startEngineNode({ args: ['--miner-extra-data', '0x626173616c74'] })
})
afterAll(async () => {
  await en?.node.cleanup()
})

type Fork = 'cancun' | 'prague' | 'osaka'

interface Produced {
  envelope: any
  payload: any
  status: any
}

/** fcU with attributes on `parentHash`, getPayload, newPayload; the head moves only with `isHead`. */
async function produce(
  parentHash: string,
  timestamp: number,
  fork: Fork,
  opts: { feeRecipient?: string; isHead?: boolean } = {},
): Promise<Produced> {
  const fcu = await en.rpc('engine_forkchoiceUpdatedV3', [
    { headBlockHash: parentHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
    {
      timestamp: `0x${timestamp.toString(16)}`,
      prevRandao: `0x${'11'.repeat(32)}`,
      suggestedFeeRecipient: opts.feeRecipient ?? `0x${'fe'.repeat(20)}`,
      withdrawals: [{ index: '0x0', validatorIndex: '0x1', address: `0x${'aa'.repeat(20)}`, amount: '0x64' }],
      parentBeaconBlockRoot: BEACON_ROOT,
    },
  ])
  expect(fcu.payloadStatus.status).toBe('VALID')
  expect(fcu.payloadId).toMatch(/^0x[0-9a-f]{16}$/)
  const getVersion = { cancun: 3, prague: 4, osaka: 5 }[fork]
  const envelope = await en.rpc(`engine_getPayloadV${getVersion}`, [fcu.payloadId])
  const payload = envelope.executionPayload
  const hashes = blobHashes(payload)
  const status =
    fork === 'cancun'
      ? await en.rpc('engine_newPayloadV3', [payload, hashes, BEACON_ROOT])
      : await en.rpc('engine_newPayloadV4', [payload, hashes, BEACON_ROOT, envelope.executionRequests])
  if (opts.isHead !== false) await setHead(payload.blockHash)
  return { envelope, payload, status }
}

function blobHashes(payload: any): string[] {
  return payload.transactions
    .filter((t: string) => t.startsWith('0x03'))
    .flatMap((t: string) =>
      (RLP.decode(hexToBytes(`0x${t.slice(4)}` as Hex)) as Uint8Array[][])[10].map((h) => bytesToHex(h)),
    )
}

async function setHead(hash: string, safe = ZERO32, finalized = ZERO32) {
  const r = await en.rpc('engine_forkchoiceUpdatedV3', [
    { headBlockHash: hash, safeBlockHash: safe, finalizedBlockHash: finalized },
    null,
  ])
  expect(r).toEqual({
    payloadStatus: { status: 'VALID', latestValidHash: hash, validationError: null },
    payloadId: null,
  })
}

async function head(): Promise<any> {
  return en.rpc('eth_getBlockByNumber', ['latest', false])
}

async function sendTransfer(keyIndex: number, nonce: number, to = `0x${'c0'.repeat(20)}`, data?: Hex, value = 1n) {
  const account = privateKeyToAccount(ACCOUNTS[keyIndex].privateKey as Hex)
  const raw = await account.signTransaction({
    type: 'eip1559',
    chainId: 1337,
    to: to as Hex,
    value,
    gas: 200_000n,
    nonce,
    data,
    maxFeePerGas: parseGwei('20'),
    maxPriorityFeePerGas: parseGwei('2'),
  })
  return en.rpc<string>('eth_sendRawTransaction', [raw])
}

describe('engine listener', () => {
  it('answers a request with a fresh JWT and serves the ETH group too', async () => {
    expect(await en.rpc('eth_chainId')).toBe('0x539')
    const caps = await en.rpc<string[]>('engine_exchangeCapabilities', [['engine_newPayloadV4']])
    expect(caps).toContain('engine_newPayloadV4')
    expect(caps).toContain('engine_getPayloadV5')
    expect(caps).not.toContain('engine_exchangeCapabilities')
  })

  it('refuses with HTTP 401 a request without a token, with a stale iat, or signed with another secret', async () => {
    expect((await en.call('eth_chainId', [], null)).status).toBe(401)
    expect((await en.call('eth_chainId', [], await jwt(-120))).status).toBe(401)
    expect((await en.call('eth_chainId', [], await jwt(120))).status).toBe(401)
    expect((await en.call('eth_chainId', [], await jwt(0, new Uint8Array(32).fill(9)))).status).toBe(401)
    expect((await en.call('eth_chainId', [], await jwt(-30))).status).toBe(200)
  })

  it('does not execute an unauthenticated forkchoice update', async () => {
    const before = await head()
    const r = await en.call(
      'engine_forkchoiceUpdatedV3',
      [{ headBlockHash: ZERO32, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 }, null],
      null,
    )
    expect(r.status).toBe(401)
    expect((await head()).hash).toBe(before.hash)
  })
})

describe('building and importing payloads', () => {
  it('builds a Cancun payload with the pooled transactions, imports it and moves the head', async () => {
    const genesis = await head()
    const txHash = await sendTransfer(0, 0)
    const t = Math.floor(Date.now() / 1000)
    const { envelope, payload, status } = await produce(genesis.hash, t, 'cancun')
    expect(payload.transactions).toHaveLength(1)
    expect(envelope.blobsBundle).toEqual({ commitments: [], proofs: [], blobs: [] })
    expect(envelope.shouldOverrideBuilder).toBe(false)
    expect(payload).toMatchObject({
      parentHash: genesis.hash,
      timestamp: `0x${t.toString(16)}`,
      prevRandao: `0x${'11'.repeat(32)}`,
      feeRecipient: `0x${'fe'.repeat(20)}`,
      // --miner-extra-data ("basalt").
      extraData: '0x626173616c74',
      withdrawals: [{ index: '0x0', validatorIndex: '0x1', address: `0x${'aa'.repeat(20)}`, amount: '0x64' }],
    })
    expect(status).toEqual({ status: 'VALID', latestValidHash: payload.blockHash, validationError: null })
    expect((await head()).hash).toBe(payload.blockHash)
    expect((await head()).parentBeaconBlockRoot).toBe(BEACON_ROOT)
    const receipt = await en.rpc('eth_getTransactionReceipt', [txHash])
    expect(receipt.blockHash).toBe(payload.blockHash)
    // The block value is what the fee recipient earns: the priority fee times the gas used.
    const tip = BigInt(receipt.effectiveGasPrice) - BigInt(payload.baseFeePerGas)
    expect(BigInt(envelope.blockValue)).toBe(tip * BigInt(receipt.gasUsed))
    expect(tip).toBe(parseGwei('2'))
    const bodies = await en.rpc('engine_getPayloadBodiesByHashV1', [[payload.blockHash, ZERO32]])
    expect(bodies[0].transactions).toEqual(payload.transactions)
    expect(bodies[1]).toBeNull()
    const range = await en.rpc('engine_getPayloadBodiesByRangeV1', ['0x1', '0x10'])
    expect(range).toHaveLength(1)
  })

  it('getPayload returns the best payload so far: one rebuilt with a transaction sent after the forkchoice update', async () => {
    const parent = await head()
    const fcu = await en.rpc('engine_forkchoiceUpdatedV3', [
      { headBlockHash: parent.hash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      {
        timestamp: `0x${(Number(parent.timestamp) + 1).toString(16)}`,
        prevRandao: ZERO32,
        suggestedFeeRecipient: `0x${'fe'.repeat(20)}`,
        withdrawals: [],
        parentBeaconBlockRoot: BEACON_ROOT,
      },
    ])
    await Bun.sleep(100)
    const txHash = await sendTransfer(3, 0)
    // The build job looks for new pool transactions every 500 ms.
    await Bun.sleep(1200)
    const envelope = await en.rpc('engine_getPayloadV3', [fcu.payloadId])
    expect(envelope.executionPayload.transactions).toHaveLength(1)
    expect(BigInt(envelope.blockValue)).toBeGreaterThan(0n)
    const status = await en.rpc('engine_newPayloadV3', [envelope.executionPayload, [], BEACON_ROOT])
    expect(status.status).toBe('VALID')
    await setHead(envelope.executionPayload.blockHash)
    expect((await en.rpc('eth_getTransactionReceipt', [txHash])).blockHash).toBe(envelope.executionPayload.blockHash)
  })

  it('answers INVALID with the parent as latest valid hash for a payload whose state root is wrong', async () => {
    const parent = await head()
    const { payload } = await produce(parent.hash, Number(parent.timestamp) + 1, 'cancun', { isHead: false })
    const block = await en.rpc('eth_getBlockByHash', [payload.blockHash, false])
    const badRoot = `0x${'12'.repeat(32)}`
    const bad = { ...payload, stateRoot: badRoot, blockHash: rehash(block, { stateRoot: badRoot }) }
    const r = await en.rpc('engine_newPayloadV3', [bad, [], BEACON_ROOT])
    expect(r.status).toBe('INVALID')
    expect(r.latestValidHash).toBe(parent.hash)
    expect(r.validationError).toBeString()
    const again = await en.rpc('engine_forkchoiceUpdatedV3', [
      { headBlockHash: bad.blockHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      null,
    ])
    expect(again.payloadStatus.status).toBe('INVALID')
    const wrongHash = await en.rpc('engine_newPayloadV3', [{ ...payload, gasUsed: '0x1' }, [], BEACON_ROOT])
    expect(wrongHash).toMatchObject({ status: 'INVALID', latestValidHash: null })
    await setHead(payload.blockHash)
  })

  it('answers SYNCING for a payload or head whose parent it does not know', async () => {
    const parent = await head()
    const { payload } = await produce(parent.hash, Number(parent.timestamp) + 1, 'cancun', { isHead: false })
    const block = await en.rpc('eth_getBlockByHash', [payload.blockHash, false])
    const orphanParent = `0x${'77'.repeat(32)}`
    const orphan = { ...payload, parentHash: orphanParent, blockHash: rehash(block, { parentHash: orphanParent }) }
    expect((await en.rpc('engine_newPayloadV3', [orphan, [], BEACON_ROOT])).status).toBe('SYNCING')
    const fcu = await en.rpc('engine_forkchoiceUpdatedV3', [
      { headBlockHash: orphan.blockHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      null,
    ])
    expect(fcu).toEqual({
      payloadStatus: { status: 'SYNCING', latestValidHash: null, validationError: null },
      payloadId: null,
    })
    await setHead(payload.blockHash)
  })

  it('reorganises to a side branch and back', async () => {
    const base = await head()
    const t = Number(base.timestamp) + 1
    const a = await produce(base.hash, t, 'cancun', { feeRecipient: `0x${'0a'.repeat(20)}`, isHead: false })
    const b = await produce(base.hash, t, 'cancun', { feeRecipient: `0x${'0b'.repeat(20)}`, isHead: false })
    expect(a.payload.blockHash).not.toBe(b.payload.blockHash)
    await setHead(a.payload.blockHash)
    const a2 = await produce(a.payload.blockHash, t + 1, 'cancun')
    expect((await head()).hash).toBe(a2.payload.blockHash)
    await setHead(b.payload.blockHash, base.hash, base.hash)
    expect((await head()).hash).toBe(b.payload.blockHash)
    const byNumber = await en.rpc('eth_getBlockByNumber', [a.payload.blockNumber, false])
    expect(byNumber.hash).toBe(b.payload.blockHash)
    expect((await en.rpc('eth_getBlockByNumber', ['finalized', false])).hash).toBe(base.hash)
    expect((await en.rpc('eth_getBlockByNumber', ['safe', false])).hash).toBe(base.hash)
    // finalized must be an ancestor of the head
    const bad = await en.call('engine_forkchoiceUpdatedV3', [
      { headBlockHash: b.payload.blockHash, safeBlockHash: ZERO32, finalizedBlockHash: a.payload.blockHash },
      null,
    ])
    expect(bad.json.error.code).toBe(-38002)
    await setHead(a2.payload.blockHash)
    expect((await en.rpc('eth_getBlockByNumber', [a.payload.blockNumber, false])).hash).toBe(a.payload.blockHash)
  })
})

describe('version and parameter errors', () => {
  it('maps wrong forks, shapes, attributes and payload ids to their codes', async () => {
    const h = await head()
    const code = async (method: string, params: unknown[]) => (await en.call(method, params)).json.error?.code
    expect(await code('engine_getPayloadV3', ['0x0000000000000001'])).toBe(-38001)
    const state = { headBlockHash: h.hash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 }
    const attrs = {
      timestamp: h.timestamp,
      prevRandao: ZERO32,
      suggestedFeeRecipient: `0x${'00'.repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: ZERO32,
    }
    expect(await code('engine_forkchoiceUpdatedV3', [state, attrs])).toBe(-38003)
    const pragueAttrs = { ...attrs, timestamp: `0x${en.pragueTime.toString(16)}` }
    expect(await code('engine_forkchoiceUpdatedV2', [state, pragueAttrs])).toBe(-32602)
    expect(
      await code('engine_forkchoiceUpdatedV3', [
        state,
        { ...attrs, timestamp: `0x${(Number(h.timestamp) + 1).toString(16)}`, parentBeaconBlockRoot: undefined },
      ]),
    ).toBe(-38003)
    const { payload } = await produce(h.hash, Number(h.timestamp) + 1, 'cancun', { isHead: false })
    expect(await code('engine_newPayloadV3', [payload, []])).toBe(-32602)
    expect(await code('engine_newPayloadV4', [payload, [], BEACON_ROOT, []])).toBe(-38005)
    expect(await code('engine_newPayloadV2', [payload])).toBe(-32602)
    expect(
      await code('engine_newPayloadV4', [
        { ...payload, timestamp: pragueAttrs.timestamp },
        [],
        BEACON_ROOT,
        ['0x01', '0x00aa'],
      ]),
    ).toBe(-32602)
    expect(await code('engine_getPayloadBodiesByRangeV1', ['0x1', '0x401'])).toBe(-38004)
    await setHead(payload.blockHash)
  })
})

describe('Prague and Osaka payloads', () => {
  it('carries a withdrawal request as an execution request through getPayloadV4 and newPayloadV4', async () => {
    const h = await head()
    const pubkey = `0x${'ab'.repeat(48)}`
    await sendTransfer(1, 0, WITHDRAWAL_REQUESTS, `${pubkey}${'00'.repeat(8)}` as Hex, 1n)
    const { envelope, status } = await produce(h.hash, en.pragueTime + 1, 'prague')
    expect(status.status).toBe('VALID')
    expect(envelope.executionRequests).toHaveLength(1)
    expect(envelope.executionRequests[0].startsWith('0x01')).toBe(true)
    const twice = [envelope.executionRequests[0], envelope.executionRequests[0]]
    const refused = await en.call('engine_newPayloadV4', [envelope.executionPayload, [], ZERO32, twice])
    expect(refused.json.error).toEqual({ code: -32602, message: 'Invalid params', data: 'Invalid execution requests' })
    expect((await en.call('engine_getPayloadV3', ['0x0000000000000001'])).json.error.code).toBe(-38001)
  })

  it('serves Osaka payloads through getPayloadV5 with a BlobsBundleV2', async () => {
    const h = await head()
    const { envelope, status } = await produce(h.hash, en.osakaTime + 1, 'osaka')
    expect(status.status).toBe('VALID')
    expect(envelope.blobsBundle).toEqual({ commitments: [], proofs: [], blobs: [] })
    expect(envelope.executionRequests).toEqual([])
    expect((await en.call('engine_getBlobsV1', [[ZERO32]])).json.error.code).toBe(-38005)
    expect(await en.rpc('engine_getBlobsV2', [[ZERO32]])).toBeNull()
    // V3 answers per blob: a missing one is null in its place.
    expect(await en.rpc('engine_getBlobsV3', [[ZERO32, ZERO32]])).toEqual([null, null])
    const fcu = await en.call('engine_forkchoiceUpdatedV3', [
      { headBlockHash: envelope.executionPayload.blockHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      {
        timestamp: `0x${(en.osakaTime + 2).toString(16)}`,
        prevRandao: ZERO32,
        suggestedFeeRecipient: `0x${'00'.repeat(20)}`,
        withdrawals: [],
        parentBeaconBlockRoot: ZERO32,
      },
    ])
    expect((await en.call('engine_getPayloadV4', [fcu.json.result.payloadId])).json.error.code).toBe(-38005)
  })
})
