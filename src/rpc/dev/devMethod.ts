/**
 * The dev-chain test methods come in up to three spellings: `evm_*` (shared by Hardhat and Anvil),
 * `hardhat_*` and `anvil_*`. One definition serves all of a method's spellings; where the two tools
 * answer differently for "done" (Hardhat `true`, Anvil `null`) the spelling decides, and the shared
 * `evm_*` names answer as Anvil does, since the node announces itself Anvil-compatible.
 */
import { type Codec, codec, decoders } from '../../jsonrpc/codecs.ts'
import { defineMethod, type RpcMethod } from '../../jsonrpc/defineMethod.ts'
import { RpcError } from '../../jsonrpc/errors.ts'
import { hexToBytes, padHex } from '../../primitives/hex.ts'
import type { DevTools } from '../../producer/devTools.ts'
import type { RpcContext } from '../context.ts'

export type Flavor = 'evm' | 'hardhat' | 'anvil'

/** What a method's handler gets besides its arguments. */
export interface DevCall {
  ctx: RpcContext
  tools: DevTools
  flavor: Flavor
}

/** The dev tools, or -32601-like refusal on a node without the dev sealer (Engine API mode). */
function toolsOf(ctx: RpcContext): DevTools {
  if (!ctx.devTools)
    throw new RpcError(-32000, 'This method needs the dev sealer; the node takes its blocks from elsewhere')
  return ctx.devTools
}

type Args<P extends readonly Codec<unknown>[]> = { [K in keyof P]: P[K] extends Codec<infer T> ? T : never }

/**
 * Defines one method under each of `names` and adds them to `into`; a handler that resolves to `undefined` answers Hardhat's
 * `true` under a `hardhat_*` name and `null` under the others.
 */
export function devMethod<const P extends readonly Codec<unknown>[], R>(
  into: RpcMethod<RpcContext>[],
  names: Partial<Record<Flavor, string>>,
  params: P,
  handler: (call: DevCall, args: Args<P>) => Promise<R> | R,
): void {
  for (const flavor of Object.keys(names) as Flavor[]) {
    const method = defineMethod({
      name: names[flavor]!,
      params,
      handler: async (ctx: RpcContext, args) => {
        const result = await handler({ ctx, tools: toolsOf(ctx), flavor }, args as Args<P>)
        return result === undefined ? (flavor === 'hardhat' ? true : null) : result
      },
    })
    into.push(method as RpcMethod<RpcContext>)
  }
}

/** A number as the tools send it: hex (leading zeros allowed), a JSON number or a decimal string. */
export const amount = (label: string): Codec<bigint> =>
  codec(label, (v) => {
    if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v)
    if (typeof v === 'number' && Number.isSafeInteger(v) && v < 0)
      return decoders.fail(`expected a non-negative number, got ${v}`)
    return decoders.lenientQuantity(v)
  })

/** A 32-byte word as Anvil takes it: any hex up to 32 bytes, left-padded. */
export const word = (label: string): Codec<Uint8Array> =>
  codec(label, (v) => {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{0,64}$/.test(v))
      return decoders.fail(`expected hex of at most 32 bytes, got ${decoders.describe(v)}`)
    return hexToBytes(padHex(v, 32))
  })
