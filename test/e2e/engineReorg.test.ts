/**
 * engine_forkchoiceUpdated's -38006 `Too deep reorg` (paris.md: a reorg deeper than the client's
 * limit), as Besu answers it after checking the forkchoice state: here a head on a side branch whose
 * common block with the canonical chain has left the BONSAI window (--bonsai-historical-block-limit
 * 2), so the trie logs that would undo the blocks above it are gone. A reorg inside the window goes
 * through; the refused one leaves the head where it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type EngineNode, startEngineNode, ZERO32 } from './engineHarness.ts'

let en: EngineNode
const BEACON_ROOT = `0x${'be'.repeat(32)}`

beforeAll(async () => {
  en = await startEngineNode({ args: ['--bonsai-historical-block-limit', '2'] })
})
afterAll(async () => {
  await en?.node.cleanup()
})

const forkchoice = (head: string) => ({ headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 })

/** A Cancun payload built on the head `parent` (fee recipient `recipient`) and sent back through newPayloadV3. */
async function payloadOn(parent: { hash: string; timestamp: string }, recipient: string): Promise<string> {
  const fcu = await en.rpc('engine_forkchoiceUpdatedV3', [
    forkchoice(parent.hash),
    {
      timestamp: `0x${(Number(parent.timestamp) + 12).toString(16)}`,
      prevRandao: `0x${'11'.repeat(32)}`,
      suggestedFeeRecipient: `0x${recipient.repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: BEACON_ROOT,
    },
  ])
  const payload = (await en.rpc('engine_getPayloadV3', [fcu.payloadId])).executionPayload
  expect((await en.rpc('engine_newPayloadV3', [payload, [], BEACON_ROOT])).status).toBe('VALID')
  return payload.blockHash
}

const block = (tag: string) =>
  en.rpc<{ hash: string; number: string; timestamp: string }>('eth_getBlockByNumber', [tag, false])
const setHead = (hash: string) => en.call('engine_forkchoiceUpdatedV3', [forkchoice(hash), null])

describe('engine_forkchoiceUpdated on a reorg', () => {
  it('answers -38006 for a head whose common block left the window, and reorganises inside it', async () => {
    const genesis = await block('latest')
    // Two children of the genesis: a1 becomes canonical, b1 stays a side branch.
    const a1 = await payloadOn(genesis, 'a1')
    const b1 = await payloadOn(genesis, 'b1')
    expect((await setHead(a1)).json.result.payloadStatus.status).toBe('VALID')
    let tip = a1
    for (let i = 2; i <= 4; i++) {
      tip = await payloadOn(await block('latest'), 'aa')
      expect((await setHead(tip)).json.result.payloadStatus.status).toBe('VALID')
    }
    // Two children of block 4: a reorg of depth 1 from a5 to c5 stays inside the window.
    const four = await block('latest')
    const a5 = await payloadOn(four, 'a5')
    const c5 = await payloadOn(four, 'c5')
    expect((await setHead(a5)).json.result.payloadStatus.status).toBe('VALID')
    expect((await setHead(c5)).json.result.payloadStatus).toEqual({
      status: 'VALID',
      latestValidHash: c5,
      validationError: null,
    })
    // Back to b1: depth 5 (head 5, common block the genesis), two blocks of state retained.
    const refused = await setHead(b1)
    expect(refused.json.error).toEqual({
      code: -38006,
      message: 'Too deep reorg',
      data: 'reorg depth 5 goes back to block 0, whose state is no longer retained (--bonsai-historical-block-limit)',
    })
    expect((await block('latest')).hash).toBe(c5)
    expect(en.node.output()).toContain('Rejecting forkchoiceUpdated: reorg below the retained state')
  })
})
