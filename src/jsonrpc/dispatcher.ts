/**
 * Transport-free JSON-RPC 2.0: parses a request body, checks the method exists and its group is
 * enabled, runs batches (up to the limit) and returns the response text. HTTP and WebSocket
 * listeners both call `handleText`.
 */
import { nextTurn } from '../primitives/clock.ts'
import { createLogger } from '../primitives/logger.ts'
import { metrics } from '../primitives/metrics.ts'
import type { RpcMethod } from './defineMethod.ts'
import {
  besuError,
  InternalError,
  InvalidRequestError,
  MethodNotEnabledError,
  MethodNotFoundError,
  ParseError,
  RpcError,
} from './errors.ts'
import { JsonText } from './jsonText.ts'

const log = createLogger('rpc')

export interface MethodGroup<Ctx> {
  /** Besu's API group name: ETH, NET, WEB3, DEBUG, TRACE, TXPOOL, ADMIN, … */
  group: string
  methods: RpcMethod<Ctx>[]
}

export interface DispatchOptions {
  enabledGroups: ReadonlySet<string>
  maxBatchSize: number
}

type Json = Record<string, unknown>

/** Runs the handling of one request or batch; the place for per-request limits (a time limit, say). */
export type RequestRunner = <T>(handle: () => Promise<T>) => Promise<T>

/** Told the name of each enabled method before it runs; the method waits for what it returns. */
export type MethodHook = (method: string) => Promise<void> | undefined

export class RpcDispatcher<Ctx> {
  private readonly methods = new Map<string, { method: RpcMethod<Ctx>; group: string }>()

  private readonly mapError: (e: unknown) => RpcError | undefined
  private readonly runRequest: RequestRunner
  private readonly beforeMethod?: MethodHook

  constructor(
    groups: MethodGroup<Ctx>[],
    mapError: (e: unknown) => RpcError | undefined = () => undefined,
    runRequest: RequestRunner = (handle) => handle(),
    beforeMethod?: MethodHook,
  ) {
    this.mapError = mapError
    this.runRequest = runRequest
    this.beforeMethod = beforeMethod
    for (const g of groups) {
      for (const m of g.methods) {
        if (this.methods.has(m.name)) throw new Error(`RPC method defined twice: ${m.name}`)
        this.methods.set(m.name, { method: m, group: g.group })
      }
    }
  }

  /** Groups that have at least one method. */
  groups(): string[] {
    return [...new Set([...this.methods.values()].map((m) => m.group))]
  }

  /**
   * Answers one request body; undefined when nothing is to be sent (notifications only). A body
   * written in a result's own bytes comes with `release`, for the caller to call once it is done
   * with the body (an HTTP response made from it), so that those bytes are written again.
   */
  async handleText(
    text: string,
    ctx: Ctx,
    opts: DispatchOptions,
  ): Promise<{ body: ResponseBody | undefined; isParseError: boolean; release?: () => void }> {
    let payload: unknown
    try {
      if (text.length > MAX_JSON_DEPTH && isNestedDeeperThan(text, MAX_JSON_DEPTH)) throw new Error('too deep')
      payload = withExactIds(text, JSON.parse(text))
    } catch {
      return { body: JSON.stringify(errorResponse(null, new ParseError())), isParseError: true }
    }
    const out = await this.handlePayload(payload, ctx, opts)
    if (out === undefined) return { body: undefined, isParseError: false }
    const result = (out as Json).result
    const release = result instanceof JsonText ? () => result.release() : undefined
    return { body: responseText(out), isParseError: false, release }
  }

  handlePayload(payload: unknown, ctx: Ctx, opts: DispatchOptions): Promise<unknown> {
    if (!Array.isArray(payload)) return this.runRequest(() => this.handleOne(payload, ctx, opts))
    if (payload.length === 0) return Promise.resolve(errorResponse(null, new InvalidRequestError()))
    if (payload.length > opts.maxBatchSize)
      return Promise.resolve(errorResponse(null, besuError('exceedsMaxBatchSize')))
    return this.runRequest(() => this.handleBatch(payload, ctx, opts))
  }

  /**
   * A few requests of a batch run at a time, and the batch gives the event loop a turn whenever it
   * has held the thread for a slice: a batch of 1024 expensive requests neither builds 1024 VMs at
   * once nor keeps other clients waiting.
   */
  private async handleBatch(batch: unknown[], ctx: Ctx, opts: DispatchOptions): Promise<unknown> {
    const results: (Json | undefined)[] = new Array(batch.length)
    let next = 0
    let sliceStartMs = performance.now()
    const worker = async () => {
      while (next < batch.length) {
        const i = next++
        results[i] = await this.handleOne(batch[i], ctx, opts)
        if (performance.now() - sliceStartMs >= BATCH_SLICE_MS) {
          await nextTurn()
          sliceStartMs = performance.now()
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, batch.length) }, worker))
    const sent = results.filter((r) => r !== undefined)
    return sent.length === 0 ? undefined : sent
  }

  private async handleOne(req: unknown, ctx: Ctx, opts: DispatchOptions): Promise<Json | undefined> {
    if (typeof req !== 'object' || req === null || Array.isArray(req))
      return errorResponse(null, new InvalidRequestError())
    const r = req as Json
    const id = r.id === undefined ? undefined : r.id
    if (!isValidId(id)) return errorResponse(null, new InvalidRequestError())
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return errorResponse(id ?? null, new InvalidRequestError())
    // Besu takes positional params only: by-name (object) or scalar params are an invalid request.
    if (r.params !== undefined && r.params !== null && !Array.isArray(r.params)) {
      return errorResponse(id ?? null, new InvalidRequestError())
    }
    const entry = this.methods.get(r.method)
    let response: Json
    if (!entry) response = errorResponse(id ?? null, new MethodNotFoundError())
    else if (!opts.enabledGroups.has(entry.group)) response = errorResponse(id ?? null, new MethodNotEnabledError())
    else {
      metrics.inc('rpc', 'requests', r.method)
      try {
        const params = Array.isArray(r.params) ? r.params : []
        const before = this.beforeMethod?.(r.method)
        if (before) await before
        const result = await entry.method.call(ctx, params)
        response = { jsonrpc: '2.0', id: id ?? null, result: result === undefined ? null : result }
      } catch (e) {
        metrics.inc('rpc', 'errors', r.method)
        response = errorResponse(id ?? null, this.toRpcError(e, r.method))
      }
    }
    return id === undefined ? undefined : response
  }

  private toRpcError(e: unknown, method: string): RpcError {
    if (e instanceof RpcError) return e
    const mapped = this.mapError(e)
    if (mapped) return mapped
    log.error('method failed', { method, error: e instanceof Error ? (e.stack ?? e.message) : String(e) })
    return new InternalError()
  }
}

/** Requests of one batch in flight at once. */
const BATCH_CONCURRENCY = 8
/** Longest stretch a batch keeps the thread between its requests. */
const BATCH_SLICE_MS = 8

/** Jackson's default nesting limit, which Besu's parser enforces; deeper JSON is a parse error. */
const MAX_JSON_DEPTH = 1000

/** Whether JSON text nests arrays/objects deeper than `max`, without parsing it. */
export function isNestedDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let isInString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (isInString) {
      if (c === 0x5c) i++
      else if (c === 0x22) isInString = false
    } else if (c === 0x22) isInString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/** A response's text: a string, or its UTF-8 bytes. */
export type ResponseBody = string | Uint8Array<ArrayBuffer>

/** A response's text as a string (a WebSocket message is text, and so are relayed answers). */
export function bodyText(body: ResponseBody): string {
  return typeof body === 'string' ? body : new TextDecoder().decode(body)
}

/**
 * The text of a response (or batch), as a string or UTF-8 bytes. A result given as text (`JsonText`)
 * is the response's bytes, written around it in place; in a batch it is stringified as its value.
 */
export function responseText(out: unknown): ResponseBody {
  const result = (out as Json).result
  if (result instanceof JsonText) return result.response((out as Json).id)
  return JSON.stringify(out)
}

function isValidId(id: unknown): boolean {
  return id === undefined || id === null || typeof id === 'string' || typeof id === 'number' || isRawJson(id)
}

/** The runtime's raw JSON values (JSON.rawJSON: Bun, Deno, Node 22), absent on older runtimes. */
const rawJson = JSON as unknown as {
  rawJSON?: (text: string) => object
  isRawJSON?: (v: unknown) => boolean
}

function isRawJson(v: unknown): boolean {
  return rawJson.isRawJSON?.(v) === true
}

/**
 * `payload` (parsed from `text`) with each request's integer id past 2^53 as the digits it was sent
 * with, as Besu echoes it (Jackson reads it as a long or a BigInteger); a double would answer
 * `12345678901234567890123` as `1.2345678901234568e+22`. Such a body is parsed again, noting the
 * source text of every such `id`, and only the requests' own ids (not an `id` inside params) become
 * raw JSON, which JSON.stringify writes as it came. Other bodies are returned as they are.
 */
function withExactIds(text: string, payload: unknown): unknown {
  const requests = Array.isArray(payload) ? payload : [payload]
  const isInexact = (r: unknown) => {
    const id = (r as Json | null)?.id
    return typeof id === 'number' && Number.isInteger(id) && !Number.isSafeInteger(id)
  }
  const toRaw = rawJson.rawJSON
  if (toRaw === undefined || !requests.some(isInexact)) return payload
  const sources = new WeakMap<object, string>()
  const reparsed = JSON.parse(text, function (
    this: object,
    key: string,
    value: unknown,
    context?: { source?: string },
  ) {
    if (key === 'id' && typeof value === 'number' && context?.source) sources.set(this, context.source)
    return value
  } as (key: string, value: unknown) => unknown)
  for (const r of Array.isArray(reparsed) ? reparsed : [reparsed]) {
    const source = isInexact(r) ? sources.get(r as object) : undefined
    if (source !== undefined) (r as Json).id = toRaw(source)
  }
  return reparsed
}

function errorResponse(id: unknown, e: RpcError): Json {
  const error: Json = { code: e.code, message: e.message }
  if (e.data !== undefined) error.data = e.data
  return { jsonrpc: '2.0', id, error }
}
