/**
 * The DEBUG group: transaction and block traces (struct logs or a named tracer), raw RLP getters,
 * bad blocks and storage ranges. Tracing replays blocks through evm/tracers; nothing here writes
 * to the chain. Spec: execution-apis src/debug/trace.yaml, src/debug/getters.yaml
 */
import { createBlockFromRLP } from '@ethereumjs/block'
import { traceCallRequest } from '../../evm/tracers/callRequestTracer.ts'
import { createTracer, type TraceConfig } from '../../evm/tracers/createTracer.ts'
import { codec, ParamError, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError } from '../../jsonrpc/errors.ts'
import type { RpcContext } from '../context.ts'
import { mapCallErrors } from '../eth/callErrors.ts'
import { callParams } from '../eth/callRequest.ts'
import { requireBlock } from '../eth/resolveBlock.ts'
import { askAboutRemoteTransaction } from '../forkHistory.ts'
import { accountMethods } from './accountMethods.ts'
import { nodeMethods } from './nodeMethods.ts'
import { rawMethods } from './rawMethods.ts'
import { storageRangeAt } from './storageRangeAt.ts'
import {
  mapTracingErrors,
  requireBlockByHash,
  requireTransaction,
  traceBlockTransactions,
  traceConfig,
  traceTransactionAt,
} from './traceRunner.ts'
import { traceToFileMethods } from './traceToFile.ts'

const config = traceConfig.optional()

/**
 * debug_traceCall's config: a trace config and the call's `stateOverrides` and `blockOverrides`
 * (geth's TraceCallConfig; Besu reads `stateOverrides` there too), decoded as eth_call's.
 */
const callTraceConfig = codec('trace config', (v: unknown) => {
  const cfg = traceConfig.decode(v)
  const o = v as Record<string, unknown>
  const given = (k: string) => o[k] !== undefined && o[k] !== null
  return {
    cfg: cfg as TraceConfig | undefined,
    stateOverrides: given('stateOverrides') ? callParams.stateOverrides.decode(o.stateOverrides) : undefined,
    blockOverrides: given('blockOverrides') ? callParams.blockOverrides.decode(o.blockOverrides) : undefined,
  }
}).optional({ cfg: undefined, stateOverrides: undefined, blockOverrides: undefined })

/** Replays a transaction and returns its trace. Spec: execution-apis src/debug/trace.yaml */
export const traceTransaction = defineMethod({
  name: 'debug_traceTransaction',
  besu: { kinds: ['transactionHash', 'transactionTrace'] },
  params: [p.hash, config],
  handler: async (ctx: RpcContext, [hash, cfg]) => {
    if (ctx.forkHistory && !(await ctx.chain.findTransaction(hash))) {
      const remote = await askAboutRemoteTransaction(ctx, hash, 'debug_traceTransaction', cfg ? [cfg] : [])
      if (remote !== undefined) return remote
    }
    const { block, index } = await requireTransaction(ctx, hash)
    const tracer = await mapTracingErrors(async () => createTracer(cfg))
    return traceTransactionAt(ctx, block, index, tracer)
  },
})

/** Traces every transaction of a canonical block. Spec: execution-apis src/debug/trace.yaml */
export const traceBlockByNumber = defineMethod({
  name: 'debug_traceBlockByNumber',
  besu: { kinds: ['block', 'transactionTrace'] },
  params: [p.blockNumberOrTag, config],
  handler: async (ctx: RpcContext, [ref, cfg]) => {
    const block = await ctx.chain.resolve(ref)
    if (!block) throw besuError('blockNotFound', `block ${ref} not found`)
    return traceBlockTransactions(ctx, block, cfg)
  },
})

/** Traces every transaction of a block named by hash. Spec: execution-apis src/debug/trace.yaml */
export const traceBlockByHash = defineMethod({
  name: 'debug_traceBlockByHash',
  besu: { kinds: ['blockHash', 'transactionTrace'] },
  params: [p.hash, config],
  handler: async (ctx: RpcContext, [hash, cfg]) =>
    traceBlockTransactions(ctx, await requireBlockByHash(ctx, hash), cfg),
})

/** Traces a block given as RLP, on top of its (stored) parent. */
export const traceBlock = defineMethod({
  name: 'debug_traceBlock',
  besu: { kinds: ['block', 'transactionTrace'] },
  params: [p.named('block', p.data), config],
  handler: async (ctx: RpcContext, [rlp, cfg]) => {
    let block: ReturnType<typeof createBlockFromRLP>
    try {
      block = createBlockFromRLP(rlp, { common: ctx.chain.common, setHardfork: true })
    } catch {
      throw new ParamError(0, 'invalid block RLP')
    }
    return traceBlockTransactions(ctx, block, cfg)
  },
})

/** Runs a call on a block's state and traces it. */
export const traceCall = defineMethod({
  name: 'debug_traceCall',
  besu: { kinds: ['call', 'block', 'transactionTrace'], order: [1, 0, 2] },
  params: [callParams.call, p.block.optional('latest'), callTraceConfig],
  handler: async (ctx: RpcContext, [req, ref, { cfg, stateOverrides, blockOverrides }]) => {
    const block = await requireBlock(ctx, ref)
    const tracer = await mapTracingErrors(async () => createTracer(cfg))
    const opts = { gasCap: ctx.settings.rpcGasCap, stateOverrides, blockOverrides, isBalanceChecked: req.strict }
    return mapTracingErrors(() =>
      mapCallErrors(ctx.chain.common, () => traceCallRequest(ctx.chain, block, req, opts, tracer)),
    )
  },
})

export const debugMethods = [
  traceTransaction,
  traceBlockByNumber,
  traceBlockByHash,
  traceBlock,
  traceCall,
  storageRangeAt,
  ...rawMethods,
  ...accountMethods,
  ...nodeMethods,
  ...traceToFileMethods,
]
