/**
 * DEBUG methods that act on the node rather than trace: moving the head (debug_setHead), executing
 * a block again (debug_replayBlock), rebuilding the head state (debug_resyncWorldstate), sending
 * several raw transactions (debug_batchSendRawTransaction) and the metrics (debug_metrics).
 * Head changes go through chain/headReset.ts, which keeps the dev sealer and the pool in step.
 * Besu reference: DebugSetHead, DebugResyncWorldstate, DebugBatchSendRawTransaction, DebugMetrics.
 */
import { reexecuteBlock, rewindTo } from '../../chain/headReset.ts'
import { rebuildHeadState } from '../../chain/stateRecovery.ts'
import { ParamError, p } from '../../jsonrpc/codecs.ts'
import { defineMethod, type RpcMethod } from '../../jsonrpc/defineMethod.ts'
import { BESU_ERRORS, type BesuErrorKind, besuError, InvalidParamsError, RpcError } from '../../jsonrpc/errors.ts'
import { metrics } from '../../primitives/metrics.ts'
import type { RpcContext } from '../context.ts'
import { decodeRawTransaction, submitTransaction } from '../eth/txMethods.ts'

/** Besu's answer of methods that only act. */
const SUCCESS = 'Success'

/** Moves the head back (or forward) to a stored canonical block; the state moves with it. */
export const setHead = defineMethod({
  name: 'debug_setHead',
  besu: { kinds: ['block'] },
  params: [p.blockNumberOrTag],
  handler: async (ctx: RpcContext, [ref]) => {
    const block = await ctx.chain.resolve(ref)
    if (!block) throw besuError('unknownBlock')
    await rewindTo(ctx.chain, block)
    return SUCCESS
  },
})

/** Rolls the head back to a block's parent and executes the block again, checking every root. */
export const replayBlock = defineMethod({
  name: 'debug_replayBlock',
  besu: { kinds: ['block'] },
  params: [p.blockNumberOrTag],
  handler: async (ctx: RpcContext, [ref]) => {
    const block = await ctx.chain.resolve(ref)
    if (!block) throw besuError('blockNotFound')
    if (block.header.number === 0n) throw new InvalidParamsError('Invalid params: the genesis block cannot be replayed')
    try {
      await reexecuteBlock(ctx.chain, block)
    } catch (e) {
      throw new RpcError(-32000, `Block replay failed: ${e instanceof Error ? e.message : String(e)}`)
    }
    return SUCCESS
  },
})

/**
 * Re-executes the canonical blocks from the genesis and rewrites the head state (and, on BONSAI,
 * the flat tables); the blocks stay. A replay that cannot run (a dev-tools edit of a state that
 * left the BONSAI window) answers -32000 with the reason, and nothing is changed. Under the name
 * Besu's documentation gives (`debug_resyncWorldstate`) and the one its code registers
 * (`debug_resyncWorldState`).
 */
function resyncMethod(name: string) {
  return defineMethod({
    name,
    besu: { kinds: [] },
    params: [],
    handler: async (ctx: RpcContext) => {
      try {
        await ctx.chain.exclusive(() => rebuildHeadState(ctx.chain))
      } catch (e) {
        throw new RpcError(-32000, `World state resync failed: ${e instanceof Error ? e.message : String(e)}`)
      }
      return true
    },
  })
}

export const resyncWorldstate = resyncMethod('debug_resyncWorldstate')
const resyncWorldState = resyncMethod('debug_resyncWorldState')

/**
 * Sends each argument (one raw transaction each, any number of them) to the pool; answers one
 * `{index, success, errorMessage?}` per argument. The arguments are variadic, so this method is an
 * `RpcMethod` of its own rather than a fixed list of codecs; each one is decoded like
 * eth_sendRawTransaction's and a bad one fails only its own entry, with Besu's words: bytes that
 * are no transaction are "Invalid raw transaction hex", a refused one the name of Besu's
 * TransactionInvalidReason (`UPFRONT_COST_EXCEEDS_BALANCE`), as DebugBatchSendRawTransaction.
 */
export const batchSendRawTransaction: RpcMethod<RpcContext> = {
  name: 'debug_batchSendRawTransaction',
  async call(ctx, params) {
    const out: { index: number; success: boolean; errorMessage?: string }[] = []
    for (const [index, raw] of params.entries()) {
      try {
        const tx = await decodeBatchEntry(ctx, raw)
        await submitTransaction(ctx, tx)
        out.push({ index, success: true })
      } catch (e) {
        out.push({ index, success: false, errorMessage: batchEntryError(e) })
      }
    }
    return out
  },
}

/** A batch entry that is not a transaction; its message is the entry's whole answer. */
class UndecodableEntry extends Error {}

const INVALID_HEX = 'Invalid raw transaction hex'

async function decodeBatchEntry(ctx: RpcContext, raw: unknown) {
  let bytes: Uint8Array
  try {
    bytes = p.data.decode(raw)
  } catch {
    throw new UndecodableEntry(INVALID_HEX)
  }
  try {
    return await decodeRawTransaction(ctx, bytes)
  } catch (e) {
    if (!(e instanceof InvalidParamsError) && !(e instanceof ParamError)) throw e
    // Besu's decoder names a legacy signature's unsupported v; anything else undecodable is bad hex.
    const v = /need either v = 27\/28 or v >= 37.*got v = (\d+)/.exec(e.message)?.[1]
    throw new UndecodableEntry(v === undefined ? INVALID_HEX : `An unsupported encoded \`v\` value of ${v} was found`)
  }
}

/** Besu's TransactionInvalidReason for each refusal its pool and decoder share with ours. */
const INVALID_REASONS: Partial<Record<BesuErrorKind, string>> = {
  nonceTooLow: 'NONCE_TOO_LOW',
  nonceTooHigh: 'NONCE_TOO_HIGH',
  nonceTooFarInFuture: 'NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER',
  invalidSignature: 'INVALID_SIGNATURE',
  intrinsicGasExceedsLimit: 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT',
  upfrontCostExceedsBalance: 'UPFRONT_COST_EXCEEDS_BALANCE',
  exceedsBlockGasLimit: 'EXCEEDS_BLOCK_GAS_LIMIT',
  exceedsTransactionGasLimit: 'EXCEEDS_TRANSACTION_GAS_LIMIT',
  gasPriceTooLow: 'GAS_PRICE_TOO_LOW',
  gasPriceBelowBaseFee: 'GAS_PRICE_BELOW_CURRENT_BASE_FEE',
  wrongChainId: 'WRONG_CHAIN_ID',
  replayProtectionNotSupported: 'REPLAY_PROTECTED_SIGNATURES_NOT_SUPPORTED',
  knownTransaction: 'TRANSACTION_ALREADY_KNOWN',
  replacementUnderpriced: 'TRANSACTION_REPLACEMENT_UNDERPRICED',
  priorityFeeExceedsMaxFee: 'MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS',
  txFeeCapExceeded: 'TX_FEECAP_EXCEEDED',
}

function batchEntryError(e: unknown): string {
  if (e instanceof UndecodableEntry) return e.message
  if (e instanceof RpcError) {
    for (const [kind, [code, message]] of Object.entries(BESU_ERRORS) as [BesuErrorKind, readonly [number, string]][])
      if (e.code === code && e.message === message && INVALID_REASONS[kind]) return INVALID_REASONS[kind]
  }
  return e instanceof Error ? e.message : String(e)
}

/** The node's counters, timers and gauges by category (rpc, blockchain, transaction_pool, storage). */
export const debugMetrics = defineMethod({
  name: 'debug_metrics',
  besu: { kinds: [] },
  params: [],
  handler: () => metrics.snapshot(),
})

export const nodeMethods = [
  setHead,
  replayBlock,
  resyncWorldstate,
  resyncWorldState,
  batchSendRawTransaction,
  debugMetrics,
]
