/** Picks the tracer a TraceConfig names and wraps it so its result is ready for JSON. */

import type { EVM } from '@ethereumjs/evm'
import type { RunTxResult } from '@ethereumjs/vm'
import { remainingExecutionMs } from '../executionDeadline.ts'
import { withDirectStep } from '../stepEvent.ts'
import { CallTracer, formatCallFrame } from './callTracer.ts'
import { FourByteTracer } from './fourByteTracer.ts'
import { flattenCallFrames, precompileAddresses, withoutPrecompileCalls } from './parityTrace.ts'
import { PrestateTracer } from './prestateTracer.ts'
import { StructLogger, type StructLoggerOptions } from './structLogger.ts'
import { TraceTimeoutError, type TxContext, type TxTracer } from './txTracer.ts'

/** The TraceConfig object of debug_trace* (execution-apis src/schemas/opcode-tracer.yaml). */
export interface TraceConfig extends StructLoggerOptions {
  tracer?: string
  tracerConfig?: Record<string, unknown>
  timeout?: string
}

/** Thrown for a `timeout` that is no Go duration (geth's text). */
export class InvalidTimeoutError extends Error {
  constructor(text: string) {
    super(`time: invalid duration "${text}"`)
  }
}

const DURATION_UNITS_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

/** A Go duration (`"5s"`, `"1m30s"`, `"250ms"`) in milliseconds. */
export function parseDurationMs(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new InvalidTimeoutError(text)
  return parts.reduce((ms, p) => ms + Number(p[1]) * DURATION_UNITS_MS[p[2]], 0)
}

/**
 * geth's limit for one transaction's trace when the config names none: 5 s, for the struct logger
 * and the built-in tracers alike (eth/tracers/api.go `defaultTraceTimeout`, applied in traceTx).
 */
export const DEFAULT_TRACE_TIMEOUT_MS = 5_000
/** Steps between clock reads: a read per opcode would cost more than most opcodes. */
const STEPS_PER_CHECK = 256

/** Where a trace reads the time; tests pass their own. */
export interface TraceClock {
  now(): number
}

/** Stops the traced execution once `ms` have passed since it started. */
/** How long before the request's limit a default-timeout trace stops, so its own check comes first. */
const LIMIT_MARGIN_MS = 10

/**
 * Stops `inner` with geth's `execution timeout` after `ms`. With geth's default (`isDefault`: no
 * `timeout` asked for) the trace stops no later than the request's own time limit either, so a trace
 * that outlasts both answers geth's text rather than the node-wide limit's.
 */
function withTimeout<R>(inner: TxTracer<R>, ms: number, isDefault: boolean, clock: TraceClock): TxTracer<R> {
  let deadline = 0
  let steps = 0
  let evm: EVM | undefined
  const tick = () => {
    if (++steps % STEPS_PER_CHECK === 0 && clock.now() > deadline) throw new TraceTimeoutError()
  }
  // It reads nothing of the step, so it does not make the step build its event object either.
  const check = withDirectStep(tick, tick)
  return {
    start: (ctx) => {
      deadline = clock.now() + (isDefault ? Math.min(ms, remainingExecutionMs() - LIMIT_MARGIN_MS) : ms)
      evm = ctx.vm.evm as EVM
      evm.events.on('step', check)
      return inner.start(ctx)
    },
    finish: (ctx, r) => {
      evm?.events.off('step', check)
      return inner.finish(ctx, r)
    },
  }
}

/** Thrown for a tracer config its tracer refuses (geth's words). */
export class InvalidTracerConfigError extends Error {}

/** Thrown for a tracer name this node does not know. */
export class UnknownTracerError extends Error {
  readonly tracer: string

  constructor(tracer: string) {
    super(`tracer not found: ${tracer}`)
    this.tracer = tracer
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

/** A fresh tracer for one transaction, as `config` asks, stopped after its `timeout` (default 5 s). */
export function createTracer(config: TraceConfig = {}, clock: TraceClock = performance): TxTracer<unknown> {
  const tracer = namedTracer(config.tracer, config.tracerConfig ?? {}, config)
  const ms = config.timeout === undefined ? DEFAULT_TRACE_TIMEOUT_MS : parseDurationMs(config.timeout)
  return withTimeout(tracer, ms, config.timeout === undefined, clock)
}

/**
 * geth's muxTracer: several tracers over one execution, `tracerConfig` naming each with its own
 * config; the result holds each one's result under its name (keys sorted, as geth's JSON map).
 */
function muxTracer(cfg: Record<string, unknown>): TxTracer<Record<string, unknown>> {
  const names = Object.keys(cfg).sort()
  const tracers = names.map((name) => namedTracer(name, (cfg[name] as Record<string, unknown> | null) ?? {}, {}))
  return {
    async start(ctx) {
      for (const t of tracers) await t.start(ctx)
    },
    async finish(ctx, r) {
      const out: Record<string, unknown> = {}
      for (const [i, t] of tracers.entries()) out[names[i]] = await t.finish(ctx, r)
      return out
    },
  }
}

function namedTracer(name: string | undefined, cfg: Record<string, unknown>, config: TraceConfig): TxTracer<unknown> {
  switch (name) {
    case undefined:
    case '':
      return new StructLogger(config)
    case 'callTracer':
      return mapped(
        new CallTracer({ onlyTopCall: flag(cfg, 'onlyTopCall'), withLog: flag(cfg, 'withLog') }),
        formatCallFrame,
      )
    case 'prestateTracer':
      if (flag(cfg, 'diffMode') && flag(cfg, 'includeEmpty'))
        throw new InvalidTracerConfigError('cannot use diffMode with includeEmpty')
      return new PrestateTracer({
        diffMode: flag(cfg, 'diffMode'),
        disableCode: flag(cfg, 'disableCode'),
        disableStorage: flag(cfg, 'disableStorage'),
        includeEmpty: flag(cfg, 'includeEmpty'),
      })
    case '4byteTracer':
      return new FourByteTracer()
    case 'flatCallTracer':
      // geth's options: precompile calls left out and geth's error texts kept unless asked.
      return mapped(new CallTracer(), (root, ctx) =>
        flattenCallFrames(
          flag(cfg, 'includePrecompiles') ? root : withoutPrecompileCalls(root, precompileAddresses(ctx)),
          {
            blockHash: ctx.block.hash(),
            blockNumber: ctx.block.header.number,
            transactionHash: ctx.tx.hash(),
            transactionPosition: ctx.index ?? 0,
          },
          { isParityErrors: flag(cfg, 'convertParityErrors'), isGethFlat: true },
        ),
      )
    case 'noopTracer':
      return { start: () => {}, finish: () => ({}) }
    case 'muxTracer':
      return muxTracer(cfg)
    default:
      throw new UnknownTracerError(name ?? '')
  }
}
