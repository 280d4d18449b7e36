/**
 * The Paris and Shanghai methods (V1/V2) and the fork checks of every version, on a chain that starts
 * at Paris and reaches Shanghai, Cancun, Prague and Osaka at set times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type EngineNode, startEngineNode, ZERO32 } from './engineHarness.ts'

let en: EngineNode
const NOW = Math.floor(Date.now() / 1000)
const SHANGHAI = NOW + 1000
const CANCUN = NOW + 2000
const hex = (n: number) => `0x${n.toString(16)}`
const FEE_RECIPIENT = `0x${'fe'.repeat(20)}`

beforeAll(async () => {
  en = await startEngineNode({
    shanghaiTime: SHANGHAI,
    cancunTime: CANCUN,
    pragueTime: NOW + 3000,
    osakaTime: NOW + 4000,
  })
})
afterAll(async () => {
  await en?.node.cleanup()
})

const code = async (method: string, params: unknown[]) => (await en.call(method, params)).json.error?.code
const state = (head: string) => ({ headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 })
const attributes = (timestamp: number, extra: Record<string, unknown> = {}) => ({
  timestamp: hex(timestamp),
  prevRandao: `0x${'33'.repeat(32)}`,
  suggestedFeeRecipient: FEE_RECIPIENT,
  ...extra,
})

describe('Paris payloads through V1', () => {
  it('builds, serves and imports a payload, and answers INVALID_BLOCK_HASH for a wrong hash', async () => {
    const genesis = await en.rpc('eth_getBlockByNumber', ['latest', false])
    const fcu = await en.rpc('engine_forkchoiceUpdatedV1', [state(genesis.hash), attributes(NOW)])
    expect(fcu.payloadStatus).toEqual({ status: 'VALID', latestValidHash: genesis.hash, validationError: null })
    const payload = await en.rpc('engine_getPayloadV1', [fcu.payloadId])
    expect(payload.withdrawals).toBeUndefined()
    expect(payload.feeRecipient).toBe(FEE_RECIPIENT)
    const v2 = await en.rpc('engine_getPayloadV2', [fcu.payloadId])
    expect(v2).toEqual({ executionPayload: payload, blockValue: '0x0' })
    expect(await code('engine_getPayloadV3', [fcu.payloadId])).toBe(-38005)

    expect(await en.rpc('engine_newPayloadV1', [{ ...payload, gasUsed: '0x1' }])).toEqual({
      status: 'INVALID_BLOCK_HASH',
      latestValidHash: null,
      validationError: expect.stringContaining('blockHash'),
    })
    expect(await code('engine_newPayloadV1', [{ ...payload, withdrawals: [] }])).toBe(-32602)
    expect(await code('engine_newPayloadV2', [{ ...payload, withdrawals: [] }])).toBe(-32602)
    // Besu puts the reason in the error's data.
    expect((await en.call('engine_newPayloadV2', [{ ...payload, withdrawals: [] }])).json.error).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: 'Invalid withdrawals',
    })
    expect(await en.rpc('engine_newPayloadV1', [payload])).toEqual({
      status: 'VALID',
      latestValidHash: payload.blockHash,
      validationError: null,
    })
    await en.rpc('engine_forkchoiceUpdatedV1', [state(payload.blockHash), null])
    expect((await en.rpc('eth_getBlockByNumber', ['latest', false])).hash).toBe(payload.blockHash)
    const [body] = await en.rpc('engine_getPayloadBodiesByRangeV1', ['0x1', '0x1'])
    expect(body).toEqual({ transactions: [], withdrawals: null })
  })
})

describe('fork checks of each version', () => {
  it('forkchoiceUpdated: V1 up to Shanghai, V2 with withdrawals from Shanghai to Cancun, V3 from Cancun', async () => {
    const head = (await en.rpc('eth_getBlockByNumber', ['latest', false])).hash
    expect(await code('engine_forkchoiceUpdatedV1', [state(head), attributes(SHANGHAI)])).toBe(-38005)
    expect(await code('engine_forkchoiceUpdatedV2', [state(head), attributes(SHANGHAI)])).toBe(-32602)
    expect(await code('engine_forkchoiceUpdatedV2', [state(head), attributes(NOW + 1, { withdrawals: [] })])).toBe(
      -32602,
    )
    expect(await code('engine_forkchoiceUpdatedV2', [state(head), attributes(CANCUN, { withdrawals: [] })])).toBe(
      -38005,
    )
    const cancunAttrs = attributes(NOW + 1, { withdrawals: [], parentBeaconBlockRoot: ZERO32 })
    expect(await code('engine_forkchoiceUpdatedV3', [state(head), cancunAttrs])).toBe(-38005)

    const fcu = await en.rpc('engine_forkchoiceUpdatedV2', [state(head), attributes(SHANGHAI, { withdrawals: [] })])
    expect(await code('engine_getPayloadV1', [fcu.payloadId])).toBe(-38005)
    const { executionPayload } = await en.rpc('engine_getPayloadV2', [fcu.payloadId])
    expect(executionPayload.withdrawals).toEqual([])
    expect(await code('engine_newPayloadV1', [executionPayload])).toBe(-32602)
    expect(await code('engine_newPayloadV3', [executionPayload, [], ZERO32])).toBe(-32602)
    expect((await en.rpc('engine_newPayloadV2', [executionPayload])).status).toBe('VALID')
  })

  it('getBlobs: V1 only from Cancun until Osaka, V2 only from Osaka, -38004 above 128 hashes first', async () => {
    expect(await code('engine_getBlobsV1', [[ZERO32]])).toBe(-38005)
    expect(await code('engine_getBlobsV2', [[ZERO32]])).toBe(-38005)
    expect(await code('engine_getBlobsV3', [[ZERO32]])).toBe(-38005)
    expect(await code('engine_getBlobsV1', [Array(129).fill(ZERO32)])).toBe(-38004)
  })

  it('answers the transition configuration, the client version and the capabilities', async () => {
    expect(
      await en.rpc('engine_exchangeTransitionConfigurationV1', [
        { terminalTotalDifficulty: '0x0', terminalBlockHash: ZERO32, terminalBlockNumber: '0x0' },
      ]),
    ).toEqual({ terminalTotalDifficulty: '0x0', terminalBlockHash: ZERO32, terminalBlockNumber: '0x0' })
    const [version] = await en.rpc('engine_getClientVersionV1', [
      { code: 'LS', name: 'Lodestar', version: 'v1.5.1', commit: '0x01020304' },
    ])
    expect(version).toMatchObject({ code: 'BA', name: 'Basalt' })
    const caps = await en.rpc<string[]>('engine_exchangeCapabilities', [['engine_newPayloadV1']])
    for (const v of [1, 2, 3, 4]) expect(caps).toContain(`engine_newPayloadV${v}`)
    for (const v of [1, 2, 3, 4, 5]) expect(caps).toContain(`engine_getPayloadV${v}`)
    for (const v of [1, 2, 3]) expect(caps).toContain(`engine_forkchoiceUpdatedV${v}`)
    for (const m of ['ByHashV1', 'ByRangeV1']) expect(caps).toContain(`engine_getPayloadBodies${m}`)
    for (const m of ['getBlobsV1', 'getClientVersionV1', 'exchangeTransitionConfigurationV1'])
      expect(caps).toContain(`engine_${m}`)
  })
})
