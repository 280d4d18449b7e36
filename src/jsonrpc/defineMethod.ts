/**
 * One definition per RPC method: its wire name, parameter codecs and handler. The handler's argument
 * types come from the codecs, so validation and types cannot drift.
 */
import { type Codec, CodecError, type Decoded } from './codecs.ts'
import { InvalidParamsError } from './errors.ts'

type DecodedTuple<P extends readonly Codec<unknown>[]> = { [K in keyof P]: Decoded<P[K]> }

export interface RpcMethod<Ctx> {
  readonly name: string
  /** Decodes `params` and runs the handler; throws RpcError. */
  call(ctx: Ctx, params: unknown[]): Promise<unknown>
}

export interface MethodSpec<Ctx, P extends readonly Codec<unknown>[], R> {
  name: string
  params: P
  handler: (ctx: Ctx, args: DecodedTuple<P>) => Promise<R> | R
}

export function defineMethod<Ctx, const P extends readonly Codec<unknown>[], R>(
  spec: MethodSpec<Ctx, P, R>,
): RpcMethod<Ctx> {
  const required = spec.params.filter((c) => !c.isOptional).length
  const max = spec.params.length
  return {
    name: spec.name,
    async call(ctx, params) {
      if (params.length > max || params.length < required) {
        const want = required === max ? `${max}` : `${required} to ${max}`
        throw new InvalidParamsError(`Invalid params: expected ${want} argument(s), got ${params.length}`)
      }
      const args = spec.params.map((c, i) => {
        try {
          return c.decode(params[i])
        } catch (e) {
          if (e instanceof CodecError) throw new InvalidParamsError(`invalid argument ${i} (${c.label}): ${e.message}`)
          throw e
        }
      })
      return spec.handler(ctx, args as DecodedTuple<P>)
    },
  }
}
