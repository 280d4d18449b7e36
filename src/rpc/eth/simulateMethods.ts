/** eth_simulateV1: calls in simulated blocks on top of a stored one. Spec: execution-apis src/eth/execute.yaml */
import type { Log } from '@ethereumjs/evm'
import { ensureKzgFor, withKzgOnDemand } from '../../chain/kzg.ts'
import { CallError } from '../../evm/callError.ts'
import {
  type SimulatedBlock,
  SimulateError,
  type SimulateErrorKind,
  type SimulateRequest,
  simulate,
} from '../../evm/simulator.ts'
import { StateOverrideError } from '../../evm/stateOverrides.ts'
import { codec, decoders, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { RpcError } from '../../jsonrpc/errors.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { formatBlock } from '../format.ts'
import { decodeBlockOverrides, decodeCallRequest, decodeStateOverrides, field, list, object } from './callRequest.ts'
import { findBlock } from './resolveBlock.ts'

/** The spec's error codes for eth_simulateV1. */
const CODES: Record<SimulateErrorKind, number> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  nonceMax: -32603,
  baseFeeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberOrder: -38020,
  timestampOrder: -38021,
  tooManyBlocks: -38026,
  invalid: -32602,
}
const OVERRIDE_CODES: Record<string, number> = { moveToItself: -32000, notAPrecompile: -32000 }
const VM_ERROR = -32015
const REVERTED = 3

function simulateError(e: unknown): unknown {
  if (e instanceof SimulateError) return new RpcError(CODES[e.kind], e.message)
  if (e instanceof StateOverrideError) return new RpcError(OVERRIDE_CODES[e.kind] ?? -32602, e.message)
  if (e instanceof CallError) return new RpcError(-32602, e.message)
  return e
}

interface Payload extends Omit<SimulateRequest, 'gasCap'> {
  isFullTransactions: boolean
}

/** Fields of a simulation that Besu reads as lenient hex (the `0x` may be left out). */
const LENIENT_HEX_FIELDS = new Set(['from', 'to', 'input', 'data', 'code', 'feeRecipient', 'movePrecompileToAddress'])
const BARE_HEX = /^[0-9a-fA-F]*$/

/** The payload with `0x` added where Besu takes hex without it: addresses, code, input, override keys. */
function withHexPrefixes(v: unknown, key?: string, isAddressKeyed = false): unknown {
  if (Array.isArray(v)) return v.map((x) => withHexPrefixes(x))
  if (typeof v === 'string') return key && LENIENT_HEX_FIELDS.has(key) && BARE_HEX.test(v) ? `0x${v}` : v
  if (v === null || typeof v !== 'object') return v
  if (key === 'state' || key === 'stateDiff') {
    // Storage overrides: slot → value, both 32-byte hex.
    const prefix = (h: unknown) => (typeof h === 'string' && /^[0-9a-fA-F]{64}$/.test(h) ? `0x${h}` : h)
    return Object.fromEntries(Object.entries(v).map(([slot, value]) => [prefix(slot), prefix(value)]))
  }
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) {
    const name = isAddressKeyed && /^[0-9a-fA-F]{40}$/.test(k) ? `0x${k}` : k
    out[name] = withHexPrefixes(x, k, k === 'stateOverrides')
  }
  return out
}

function decodePayload(raw: unknown): Payload {
  const v = withHexPrefixes(raw)
  const o = object(v, 'a simulation')
  const blockStateCalls = field(
    o,
    'blockStateCalls',
    list((b) => {
      const s = object(b, 'a block state call')
      return {
        blockOverrides: field(s, 'blockOverrides', decodeBlockOverrides),
        stateOverrides: field(s, 'stateOverrides', decodeStateOverrides),
        calls: field(s, 'calls', list(decodeCallRequest)),
      }
    }),
  )
  if (!blockStateCalls) return decoders.fail('blockStateCalls: missing')
  return {
    blockStateCalls,
    isValidated: field(o, 'validation', decoders.bool) ?? false,
    isTraceTransfers: field(o, 'traceTransfers', decoders.bool) ?? false,
    isFullTransactions: field(o, 'returnFullTransactions', decoders.bool) ?? false,
  }
}

function formatLog(log: Log, b: SimulatedBlock, txIndex: number, logIndex: number) {
  const [address, topics, data] = log
  return {
    address: bytesToHex(address),
    topics: topics.map(bytesToHex),
    data: bytesToHex(data),
    blockNumber: toQuantity(b.block.header.number),
    transactionHash: bytesToHex(b.block.transactions[txIndex].hash()),
    transactionIndex: toQuantity(txIndex),
    blockHash: bytesToHex(b.block.hash()),
    blockTimestamp: toQuantity(b.block.header.timestamp),
    logIndex: toQuantity(logIndex),
    removed: false,
  }
}

function formatSimulatedBlock(b: SimulatedBlock, isFull: boolean) {
  let logIndex = 0
  const calls = b.calls.map((c, i) => {
    logIndex += c.discardedLogCount
    const out: Record<string, unknown> = {
      // geth: a revert's output is the error's data, not the call's return data.
      returnData: c.isRevert ? '0x' : bytesToHex(c.returnData),
      logs: c.logs.map((l) => formatLog(l, b, i, logIndex++)),
      gasUsed: toQuantity(c.gasUsed),
      maxUsedGas: toQuantity(c.maxUsedGas),
      status: c.isSuccess ? '0x1' : '0x0',
    }
    if (c.isRevert) out.error = { code: REVERTED, message: 'execution reverted', data: bytesToHex(c.returnData) }
    else if (!c.isSuccess) out.error = { code: VM_ERROR, message: c.exceptionError }
    return out
  })
  return {
    ...formatBlock(
      b.block,
      isFull,
      b.calls.map((c) => c.sender),
    ),
    calls,
  }
}

/** Simulates blocks of calls with overrides. Spec: execution-apis src/eth/execute.yaml */
export const simulateV1 = defineMethod({
  name: 'eth_simulateV1',
  besu: { kinds: ['params', 'block'], order: [1, 0], required: [1] },
  params: [codec('simulation', decodePayload), p.block.optional('latest' as const)],
  handler: async (ctx: RpcContext, [payload, ref]) => {
    // geth: a block the node does not have is -32000 "header not found" here.
    const base = await findBlock(ctx, ref)
    if (!base) throw new RpcError(-32000, 'header not found')
    // Building a block of blob transactions needs KZG present: wait for the background load.
    const hasBlobs = payload.blockStateCalls.some((b) => b.calls?.some((c) => c.blobVersionedHashes !== undefined))
    if (hasBlobs) await ensureKzgFor(ctx.chain.common)
    try {
      const blocks = await withKzgOnDemand(ctx.chain.common, () =>
        simulate(ctx.chain, base, { ...payload, gasCap: ctx.settings.rpcGasCap }),
      )
      return blocks.map((b) => formatSimulatedBlock(b, payload.isFullTransactions))
    } catch (e) {
      throw simulateError(e)
    }
  },
})

export const simulateMethods = [simulateV1]
