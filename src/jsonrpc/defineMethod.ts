/**
 * One definition per RPC method: its wire name, parameter codecs and handler. The handler's argument
 * types come from the codecs, so validation and types cannot drift.
 *
 * A bad parameter is -32602. A method Besu also serves names, in `besu`, the kind of each parameter;
 * it then answers Besu's fixed text for that kind (`Invalid address params`, …) with no `data`, as
 * Besu does, and the detail (which argument, why) goes to the debug log. Other methods answer a
 * message naming the argument: `invalid argument 1 (block): …`.
 */
import { createLogger } from '../primitives/logger.ts'
import { type Codec, CodecError, type Decoded, describe, ParamError } from './codecs.ts'
import { BESU_PARAM_ERRORS, type BesuParamKind, InvalidParamsError } from './errors.ts'

const log = createLogger('rpc')

type DecodedTuple<P extends readonly Codec<unknown>[]> = { [K in keyof P]: Decoded<P[K]> }

export interface RpcMethod<Ctx> {
  readonly name: string
  /** Decodes `params` and runs the handler; throws RpcError. */
  call(ctx: Ctx, params: unknown[]): Promise<unknown>
}

/** How Besu reads a method's parameters, and so which of its texts a bad one gets. */
export interface BesuParams {
  /** The kind of each parameter, in the order of `params`. */
  kinds: readonly BesuParamKind[]
  /**
   * The order Besu reads them in, when not first to last: methods on a block's state read the block
   * first, so `[address, "bad block"]` and `[]` are both a block error there.
   */
  order?: readonly number[]
  /** Besu counts the arguments before reading them and refuses any other number. */
  count?: number
  /** The kind of that refusal: `Invalid number of params` unless the method says otherwise. */
  countKind?: BesuParamKind
  /**
   * Arguments Besu requires where Basalt takes a default (eth_call's block): absent, they are the
   * error Besu reports when another argument is bad too, since Besu reads them first.
   */
  required?: readonly number[]
}

export interface MethodSpec<Ctx, P extends readonly Codec<unknown>[], R> {
  name: string
  params: P
  besu?: BesuParams
  handler: (ctx: Ctx, args: DecodedTuple<P>) => Promise<R> | R
}

export function defineMethod<Ctx, const P extends readonly Codec<unknown>[], R>(
  spec: MethodSpec<Ctx, P, R>,
): RpcMethod<Ctx> {
  const required = spec.params.filter((c) => !c.isOptional).length
  const max = spec.params.length
  const besu = spec.besu
  if (besu) checkBesuParams(spec.name, besu, max)
  const order = besu?.order ?? spec.params.map((_, i) => i)

  /** The -32602 for argument `i`; `reason` says what was wrong, for the message or the log. */
  const paramError = (i: number, reason: string, params: unknown[], override?: BesuParamKind): InvalidParamsError => {
    if (i < 0 || i >= max) return new InvalidParamsError(`Invalid params: ${reason}`)
    const missing = besu?.required?.find((r) => r !== i && (params[r] === undefined || params[r] === null))
    if (missing !== undefined) return paramError(missing, `missing, and argument ${i} is bad: ${reason}`, params)
    const kind = besu && (override ?? besu.kinds[i])
    if (kind === undefined) return new InvalidParamsError(`invalid argument ${i} (${spec.params[i]?.label}): ${reason}`)
    log.debug('invalid params', {
      method: spec.name,
      argument: i,
      label: spec.params[i]?.label,
      reason,
      params: describe(params),
    })
    return new InvalidParamsError(BESU_PARAM_ERRORS[kind])
  }

  const argumentIndex = (a: number | string) =>
    typeof a === 'number' ? a : spec.params.findIndex((c) => c.label === a)

  const decodeAll = (params: unknown[]): unknown[] => {
    const args = new Array<unknown>(max)
    for (const i of order) {
      const c = spec.params[i] as Codec<unknown>
      if (params[i] === undefined && !c.isOptional && besu) throw paramError(i, 'missing', params)
      try {
        args[i] = c.decode(params[i])
      } catch (e) {
        if (e instanceof CodecError) throw paramError(i, e.message, params, e.besuKind)
        throw e
      }
    }
    return args
  }

  return {
    name: spec.name,
    async call(ctx, params) {
      if (besu?.count !== undefined && params.length !== besu.count) {
        log.debug('invalid params', {
          method: spec.name,
          reason: `expected ${besu.count} argument(s), got ${params.length}`,
          params: describe(params),
        })
        throw new InvalidParamsError(BESU_PARAM_ERRORS[besu.countKind ?? 'paramCount'])
      }
      // Besu ignores arguments past the last one a method reads; the others count them.
      if (!besu && (params.length > max || params.length < required)) {
        const want = required === max ? `${max}` : `${required} to ${max}`
        throw new InvalidParamsError(`Invalid params: expected ${want} argument(s), got ${params.length}`)
      }
      const args = decodeAll(params)
      try {
        return await spec.handler(ctx, args as DecodedTuple<P>)
      } catch (e) {
        if (e instanceof ParamError) throw paramError(argumentIndex(e.argument), e.message, params, e.besuKind)
        throw e
      }
    },
  }
}

function checkBesuParams(name: string, besu: BesuParams, max: number): void {
  const isPermutation =
    besu.order === undefined ||
    (besu.order.length === max && [...besu.order].sort((a, b) => a - b).every((x, i) => x === i))
  if (besu.kinds.length !== max || !isPermutation)
    throw new Error(`${name}: Besu's parameter kinds and read order must cover its ${max} parameter(s)`)
}
