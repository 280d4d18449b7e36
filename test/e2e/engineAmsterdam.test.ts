/**
 * Amsterdam's Engine API methods as the latest Besu serves them: engine_forkchoiceUpdatedV4 takes
 * the payload's slot number (EIP-7843), engine_getPayloadV6 and engine_newPayloadV5 carry it with
 * the block access list (EIP-7928, RLP), whose hash the header commits to; the earlier versions
 * answer -38005 for Amsterdam payloads. A payload built on one node is VALID on another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { keccak256 } from 'viem'
import { type EngineNode, startEngineNode, ZERO32 } from './engineHarness.ts'

let en: EngineNode
let other: EngineNode
const NOW = Math.floor(Date.now() / 1000)
const hex = (n: number) => `0x${n.toString(16)}`

beforeAll(async () => {
  ;[en, other] = await Promise.all([
    startEngineNode({ pragueTime: 0, osakaTime: 0, amsterdamTime: 0 }),
    startEngineNode({ pragueTime: 0, osakaTime: 0, amsterdamTime: 0 }),
  ])
})
afterAll(async () => {
  await Promise.all([en?.node.cleanup(), other?.node.cleanup()])
})

const state = (head: string) => ({ headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 })
const error = async (node: EngineNode, method: string, params: unknown[]) =>
  (await node.call(method, params)).json.error

describe('Amsterdam payloads', () => {
  it('builds a payload with its slot number and access list (V4, V6) and imports it on another node (V5)', async () => {
    const genesis = await en.rpc('eth_getBlockByNumber', ['latest', false])
    expect(genesis.slotNumber).toBe('0x0')
    const attributes = {
      timestamp: hex(NOW + 12),
      prevRandao: `0x${'33'.repeat(32)}`,
      suggestedFeeRecipient: `0x${'fe'.repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: `0x${'44'.repeat(32)}`,
      slotNumber: '0x2a',
      // Above the parent's: the payload's gas limit moves toward it by the most a block may.
      targetGasLimit: `0x${(BigInt(genesis.gasLimit) * 2n).toString(16)}`,
    }
    expect((await error(en, 'engine_forkchoiceUpdatedV3', [state(genesis.hash), attributes])).code).toBe(-38005)
    const { slotNumber, ...withoutSlot } = attributes
    expect(await error(en, 'engine_forkchoiceUpdatedV4', [state(genesis.hash), withoutSlot])).toEqual({
      code: -32602,
      message: 'Invalid slot number params (missing or invalid)',
      data: 'Invalid slotNumber',
    })
    const { targetGasLimit: _target, ...withoutTarget } = attributes
    expect(await error(en, 'engine_forkchoiceUpdatedV4', [state(genesis.hash), withoutTarget])).toEqual({
      code: -32602,
      message: 'Invalid target gas limit params',
      data: 'Missing target gas limit field',
    })
    expect(await error(en, 'engine_forkchoiceUpdatedV4', [state(genesis.hash), attributes, '0xabcd'])).toEqual({
      code: -32602,
      message: 'Invalid custody columns params',
      data: 'custodyColumns must be 16 bytes, got 2',
    })
    const fcu = await en.rpc('engine_forkchoiceUpdatedV4', [state(genesis.hash), attributes, `0x${'ff'.repeat(16)}`])
    expect(fcu.payloadStatus.status).toBe('VALID')
    expect((await error(en, 'engine_getPayloadV5', [fcu.payloadId])).code).toBe(-38005)
    const built = await en.rpc('engine_getPayloadV6', [fcu.payloadId])
    const payload = built.executionPayload
    expect(payload.slotNumber).toBe(slotNumber)
    const parentGas = BigInt(genesis.gasLimit)
    expect(BigInt(payload.gasLimit)).toBe(parentGas + parentGas / 1024n - 1n)
    expect(payload.blockAccessList).toMatch(/^0x[0-9a-f]+$/)
    expect(built.executionRequests).toEqual([])
    const extra = [[], attributes.parentBeaconBlockRoot, []]
    expect((await error(other, 'engine_newPayloadV4', [payload, ...extra])).code).toBe(-38005)
    const { slotNumber: _, ...noSlot } = payload
    expect(await error(other, 'engine_newPayloadV5', [noSlot, ...extra])).toEqual({
      code: -32602,
      message: 'Invalid slot number params (missing or invalid)',
    })
    expect(await error(other, 'engine_newPayloadV5', [{ ...payload, slotNumber: null }, ...extra])).toEqual({
      code: -32602,
      message: 'Invalid slot number params (missing or invalid)',
    })
    // Another slot number is another header: not the block the payload names.
    const wrongSlot = await other.rpc('engine_newPayloadV5', [{ ...payload, slotNumber: '0x2b' }, ...extra])
    expect([wrongSlot.status, wrongSlot.validationError]).toEqual([
      'INVALID',
      expect.stringContaining('Invalid blockHash'),
    ])
    // The latest Besu: an absent (or null) list and bad hex are -32602 (only the latter with data), bytes that are not a list INVALID.
    const { blockAccessList, ...without } = payload
    const missingList = { code: -32602, message: 'Invalid block access list params (missing or invalid)' }
    expect(await error(other, 'engine_newPayloadV5', [without, ...extra])).toEqual(missingList)
    expect(await error(other, 'engine_newPayloadV5', [{ ...payload, blockAccessList: null }, ...extra])).toEqual(
      missingList,
    )
    expect(await error(other, 'engine_newPayloadV5', [{ ...payload, blockAccessList: '0xzz' }, ...extra])).toEqual({
      ...missingList,
      data: "Failed to decode block access list payload parameter (Illegal character 'z' found at index 0 in hex binary representation)",
    })
    expect(await other.rpc('engine_newPayloadV5', [{ ...payload, blockAccessList: '0x01' }, ...extra])).toEqual({
      status: 'INVALID',
      latestValidHash: genesis.hash,
      validationError:
        'Failed to decode block access list payload parameter (Expected current item to be a list, but it is: BYTE_ELEMENT)',
    })
    const otherList = await other.rpc('engine_newPayloadV5', [{ ...payload, blockAccessList: '0xc0' }, ...extra])
    expect([otherList.status, otherList.validationError]).toEqual([
      'INVALID',
      expect.stringContaining('Invalid blockHash'),
    ])
    expect(await other.rpc('engine_newPayloadV5', [payload, ...extra])).toEqual({
      status: 'VALID',
      latestValidHash: payload.blockHash,
      validationError: null,
    })
    await other.rpc('engine_forkchoiceUpdatedV4', [state(payload.blockHash), null])
    const head = await other.rpc('eth_getBlockByNumber', ['latest', false])
    expect([head.hash, head.blockAccessListHash, head.slotNumber]).toEqual([
      payload.blockHash,
      keccak256(blockAccessList),
      slotNumber,
    ])
  })
})
