/** Picks the tracer a TraceConfig names and wraps it so its result is ready for JSON. */
import type { RunTxResult } from '@ethereumjs/vm'
import { CallTracer, formatCallFrame } from './callTracer.ts'
import { FourByteTracer } from './fourByteTracer.ts'
import { flattenCallFrames } from './parityTrace.ts'
import { PrestateTracer } from './prestateTracer.ts'
import { StructLogger, type StructLoggerOptions } from './structLogger.ts'
import type { TxContext, TxTracer } from './txTracer.ts'

/** The TraceConfig object of debug_trace* (execution-apis src/schemas/opcode-tracer.yaml). */
export interface TraceConfig extends StructLoggerOptions {
  tracer?: string
  tracerConfig?: Record<string, unknown>
  timeout?: string
}

/** Thrown for a tracer name this node does not know. */
export class UnknownTracerError extends Error {
  constructor(readonly tracer: string) {
    super(`tracer not found: ${tracer}`)
  }
}

function mapped<A, B>(inner: TxTracer<A>, fn: (a: A, ctx: TxContext) => B): TxTracer<B> {
  return {
    start: (ctx) => inner.start(ctx),
    finish: async (ctx: TxContext, r: RunTxResult) => fn(await inner.finish(ctx, r), ctx),
  }
}

function flag(cfg: Record<string, unknown>, name: string): boolean {
  return cfg[name] === true
}

/** A fresh tracer for one transaction, as `config` asks. */
export function createTracer(config: TraceConfig = {}): TxTracer<unknown> {
  const cfg = config.tracerConfig ?? {}
  switch (config.tracer) {
    case undefined:
    case '':
      return new StructLogger(config)
    case 'callTracer':
      return mapped(
        new CallTracer({ onlyTopCall: flag(cfg, 'onlyTopCall'), withLog: flag(cfg, 'withLog') }),
        formatCallFrame,
      )
    case 'prestateTracer':
      return new PrestateTracer({
        diffMode: flag(cfg, 'diffMode'),
        disableCode: flag(cfg, 'disableCode'),
        disableStorage: flag(cfg, 'disableStorage'),
      })
    case '4byteTracer':
      return new FourByteTracer()
    case 'flatCallTracer':
      return mapped(new CallTracer({ withSelfdestructs: true }), (root, ctx) =>
        flattenCallFrames(root, {
          blockHash: ctx.block.hash(),
          blockNumber: ctx.block.header.number,
          transactionHash: ctx.tx.hash(),
          transactionPosition: ctx.index ?? 0,
        }),
      )
    case 'noopTracer':
      return { start: () => {}, finish: () => ({}) }
    default:
      throw new UnknownTracerError(config.tracer)
  }
}
