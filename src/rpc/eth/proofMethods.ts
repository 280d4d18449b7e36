/** Merkle proofs and batched storage reads. Spec: execution-apis src/eth/state.yaml (EIP-1186) */
import { getMerkleStateProof } from '@ethereumjs/statemanager'
import { Address } from '@ethereumjs/util'
import { codec, decoders, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../../jsonrpc/errors.ts'
import { bigintToPaddedBytes, bytesToBigint, bytesToHex, hexToBytes, padHex, toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { requireBlock } from './resolveBlock.ts'

const latest = p.block.optional('latest' as const)
const MAX_STORAGE_VALUES = 1024

/** A 32-byte word written with `minDigits` to 64 hex digits, left-padded. */
function hexWord(v: unknown, minDigits: number, what: string): Uint8Array {
  const digits = typeof v === 'string' && v.startsWith('0x') ? v.length - 2 : -1
  if (typeof v !== 'string' || digits < minDigits || !/^0x[0-9a-fA-F]{0,64}$/.test(v))
    return decoders.fail(`expected ${what} of up to 32 bytes, got ${decoders.describe(v)}`)
  return hexToBytes(padHex(v, 32))
}

/** A storage key (`0x0`, `0x00`, a full hash), read as Besu reads it: a UInt256, left-padded. */
export const storageKey = (v: unknown): Uint8Array => hexWord(v, 1, 'a storage key')

/**
 * The start key of debug_accountRange and debug_storageRangeAt: any count of hex digits, `0x` for
 * zero, as Besu's Bytes32/Hash.fromHexStringLenient reads it.
 */
export const lenientHashKey = (v: unknown): Uint8Array => hexWord(v, 0, 'a hashed key')

const storageKeys = p.array(codec('storage key', storageKey), 'storage keys')

/** An account with its Merkle proof and proofs of some of its storage slots. Spec: EIP-1186 */
export const getProof = defineMethod({
  name: 'eth_getProof',
  besu: { kinds: ['address', 'storageKeys', 'block'], order: [2, 0, 1], required: [2] },
  params: [p.address, storageKeys, latest],
  handler: async (ctx: RpcContext, [address, keys, ref]) => {
    const state = ctx.chain.stateAt(await requireBlock(ctx, ref))
    const account = new Address(address)
    const proof = await getMerkleStateProof(state, account, keys)
    const byKey = new Map(proof.storageProof.map((s) => [s.key, s]))
    return {
      address: bytesToHex(address),
      accountProof: proof.accountProof,
      balance: proof.balance,
      codeHash: proof.codeHash,
      nonce: proof.nonce,
      storageHash: proof.storageHash,
      // Each key as a quantity whatever its spelling, as Besu's StorageEntryProof (Quantity of the
      // UInt256 key: `0x347` for `0x00…0347`).
      storageProof: keys.map((k) => {
        const s = byKey.get(bytesToHex(k))
        return {
          key: toQuantity(bytesToBigint(k)),
          value: s ? toQuantity(BigInt(s.value)) : '0x0',
          proof: s?.proof ?? [],
        }
      }),
    }
  },
})

function storageRequests(v: unknown): [Uint8Array, Uint8Array[]][] {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return decoders.fail('expected an object of address to storage keys')
  const entries = Object.entries(v as Record<string, unknown>)
  let total = 0
  const out = entries.map(([addr, slots]): [Uint8Array, Uint8Array[]] => {
    const address = decoders.fixed(20, 'an address')(addr)
    if (!Array.isArray(slots)) return decoders.fail(`${addr}: expected an array of storage keys`)
    total += slots.length
    return [address, slots.map((s) => storageKey(s))]
  })
  if (total > MAX_STORAGE_VALUES) decoders.fail(`too many slots (max ${MAX_STORAGE_VALUES})`)
  return out
}

/** Many storage slots of many accounts at one block. Spec: execution-apis src/eth/state.yaml */
export const getStorageValues = defineMethod({
  name: 'eth_getStorageValues',
  params: [codec('requests', storageRequests), latest],
  handler: async (ctx: RpcContext, [requests, ref]) => {
    if (requests.length === 0) throw new InvalidParamsError('empty request')
    const state = ctx.chain.stateAt(await requireBlock(ctx, ref))
    const out: Record<string, string[]> = {}
    for (const [address, slots] of requests) {
      const values: string[] = []
      for (const slot of slots)
        values.push(
          bytesToHex(bigintToPaddedBytes(bytesToBigint(await state.getStorage(new Address(address), slot)), 32)),
        )
      out[bytesToHex(address)] = values
    }
    return out
  },
})

export const proofMethods = [getProof, getStorageValues]
