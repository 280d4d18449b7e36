/**
 * Amsterdam's Engine API methods as Besu serves them: engine_getPayloadV6 and engine_newPayloadV5
 * carry the block access list (EIP-7928, RLP), whose hash the header commits to; the earlier
 * versions answer -38005 for Amsterdam payloads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { keccak256 } from 'viem'
import { type EngineNode, startEngineNode, ZERO32 } from './engineHarness.ts'

let en: EngineNode
const NOW = Math.floor(Date.now() / 1000)
const hex = (n: number) => `0x${n.toString(16)}`

beforeAll(async () => {
  en = await startEngineNode({ pragueTime: 0, osakaTime: 0, amsterdamTime: 0 })
})
afterAll(async () => {
  await en?.node.cleanup()
})

const state = (head: string) => ({ headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 })
const code = async (method: string, params: unknown[]) => (await en.call(method, params)).json.error?.code

describe('Amsterdam payloads', () => {
  it('builds a payload with its access list (V6) and imports it (V5), the header committing to its hash', async () => {
    const genesis = await en.rpc('eth_getBlockByNumber', ['latest', false])
    const attributes = {
      timestamp: hex(NOW + 12),
      prevRandao: `0x${'33'.repeat(32)}`,
      suggestedFeeRecipient: `0x${'fe'.repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: `0x${'44'.repeat(32)}`,
    }
    const fcu = await en.rpc('engine_forkchoiceUpdatedV3', [state(genesis.hash), attributes])
    expect(fcu.payloadStatus.status).toBe('VALID')
    expect(await code('engine_getPayloadV5', [fcu.payloadId])).toBe(-38005)
    const built = await en.rpc('engine_getPayloadV6', [fcu.payloadId])
    const payload = built.executionPayload
    expect(payload.blockAccessList).toMatch(/^0x[0-9a-f]+$/)
    expect(built.executionRequests).toEqual([])
    const extra = [[], attributes.parentBeaconBlockRoot, []]
    expect(await code('engine_newPayloadV4', [payload, ...extra])).toBe(-38005)
    const { blockAccessList, ...without } = payload
    expect(await en.rpc('engine_newPayloadV5', [without, ...extra])).toEqual({
      status: 'INVALID',
      latestValidHash: genesis.hash,
      validationError: 'Missing block access list field',
    })
    expect(await en.rpc('engine_newPayloadV5', [{ ...payload, blockAccessList: '0x01' }, ...extra])).toEqual({
      status: 'INVALID',
      latestValidHash: genesis.hash,
      validationError: 'Invalid block access list encoding',
    })
    // Another well-formed list changes the header's hash: not the block the payload names.
    const other = await en.rpc('engine_newPayloadV5', [{ ...payload, blockAccessList: '0xc0' }, ...extra])
    expect([other.status, other.validationError]).toEqual(['INVALID', expect.stringContaining('Invalid blockHash')])
    expect(await en.rpc('engine_newPayloadV5', [payload, ...extra])).toEqual({
      status: 'VALID',
      latestValidHash: payload.blockHash,
      validationError: null,
    })
    await en.rpc('engine_forkchoiceUpdatedV3', [state(payload.blockHash), null])
    const head = await en.rpc('eth_getBlockByNumber', ['latest', false])
    expect([head.hash, head.blockAccessListHash]).toEqual([payload.blockHash, keccak256(blockAccessList)])
  })
})
