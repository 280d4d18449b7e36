/** Account state at a block. Spec: execution-apis src/eth/state.yaml */
import { Address } from '@ethereumjs/util'
import { codec, decoders, ParamError, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { bigintToPaddedBytes, bytesToHex, toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { requireBlock } from './resolveBlock.ts'

const latest = p.block.optional('latest' as const)

/** A storage slot as a hex number of at most 64 digits (leading zeros count, as in geth). */
const storageKey = codec('position', (v) => {
  if (typeof v === 'string' && v.length > 66)
    decoders.fail(`storage key too long (want at most 32 bytes): ${JSON.stringify(v)}`)
  return decoders.lenientQuantity(v)
})

export const getBalance = defineMethod({
  name: 'eth_getBalance',
  besu: { kinds: ['address', 'block'], order: [1, 0], required: [1] },
  params: [p.address, latest],
  handler: async (ctx: RpcContext, [address, ref]) => {
    const state = ctx.chain.stateAt(await requireBlock(ctx, ref))
    const account = await state.getAccount(new Address(address))
    return toQuantity(account?.balance ?? 0n)
  },
})

export const getCode = defineMethod({
  name: 'eth_getCode',
  besu: { kinds: ['address', 'block'], order: [1, 0], required: [1] },
  params: [p.address, latest],
  handler: async (ctx: RpcContext, [address, ref]) => {
    const state = ctx.chain.stateAt(await requireBlock(ctx, ref))
    return bytesToHex(await state.getCode(new Address(address)))
  },
})

export const getStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  besu: { kinds: ['address', 'position', 'block'], order: [2, 0, 1], required: [2] },
  params: [p.address, storageKey, latest],
  handler: async (ctx: RpcContext, [address, slot, ref]) => {
    if (slot >= 1n << 256n) throw new ParamError(1, 'larger than 32 bytes')
    const state = ctx.chain.stateAt(await requireBlock(ctx, ref))
    const value = await state.getStorage(new Address(address), bigintToPaddedBytes(slot, 32))
    return bytesToHex(bigintToPaddedBytes(BigInt(value.length === 0 ? 0 : bytesToHex(value)), 32))
  },
})

export const getTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  besu: { kinds: ['address', 'block'], order: [1, 0], required: [1] },
  params: [p.address, latest],
  handler: async (ctx: RpcContext, [address, ref]) => {
    const state = ctx.chain.stateAt(await requireBlock(ctx, ref))
    const nonce = (await state.getAccount(new Address(address)))?.nonce ?? 0n
    if (ref !== 'pending') return toQuantity(nonce)
    return toQuantity(ctx.pool.pendingNonce(bytesToHex(address), nonce))
  },
})

export const stateMethods = [getBalance, getCode, getStorageAt, getTransactionCount]
