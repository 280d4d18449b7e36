/** debug_storageRangeAt: a page of an account's storage after a transaction, in hashed-key order. */
import { Address } from '@ethereumjs/util'
import { replayBlock } from '../../evm/tracers/blockReplayer.ts'
import type { TxTracer } from '../../evm/tracers/txTracer.ts'
import { codec, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { bytesToBigint, bytesToHex, type Hex, hexToBytes, padHex } from '../../primitives/hex.ts'
import { StateUnavailableError } from '../../state/bonsaiState.ts'
import type { PreimageTable } from '../../state/preimages.ts'
import type { StateManager } from '../../state/worldState.ts'
import type { RpcContext } from '../context.ts'
import { lenientHashKey } from '../eth/proofMethods.ts'
import { tracingError } from './traceRunner.ts'

/**
 * A slot's value as geth and Besu print it, one 32-byte word: the trie holds it RLP-encoded without
 * leading zeros (one byte below 0x80 stands for itself, else a 0x80+length prefix comes first).
 */
function storageWord(rlpHex: string): Hex {
  const b = hexToBytes(rlpHex as Hex)
  const data = b.length === 1 && b[0] < 0x80 ? b : b.subarray(1)
  return padHex(bytesToHex(data), 32)
}

/**
 * Reads the storage range of `address` from `state`. Each slot's `key` comes from the preimage
 * table; null for one written before that table existed.
 */
async function readStorageRange(
  state: StateManager,
  address: Uint8Array,
  startKey: bigint,
  limit: number,
  preimages: PreimageTable | undefined,
) {
  const range = await state.dumpStorageRange(new Address(address), startKey, limit)
  for (const [hashed, slot] of Object.entries(range.storage)) {
    const key = preimages?.lookup(hexToBytes(hashed as `0x${string}`))
    slot.key = key ? bytesToHex(key) : null
    slot.value = storageWord(slot.value)
  }
  return range
}

/** Not a tracer of execution: it hands `read` the state once the transaction has run (Besu's rule). */
function storageReader(read: (state: StateManager) => Promise<unknown>): TxTracer<unknown> {
  return {
    start: () => {},
    finish: async ({ vm }) => {
      const state = vm.stateManager as StateManager
      await state.flush()
      return read(state)
    },
  }
}

/** Besu's answer where it has no state to read: no slots and no next key. */
const EMPTY_RANGE = { storage: {}, nextKey: null }

/**
 * Storage of `address` after transaction `txIndex` of a block, from `startKey` (a hashed key) on.
 * As Besu's DebugStorageRangeAt: the block by number, tag or hash; an unknown block, or a state
 * that is not kept, gives an empty range; an index past the block's transactions reads the state
 * the block starts from (its parent's).
 */
export const storageRangeAt = defineMethod({
  name: 'debug_storageRangeAt',
  besu: { kinds: ['block', 'transactionIndex', 'address', 'dataHash', 'transactionLimit'] },
  params: [
    p.named('blockHashOrNumber', p.block),
    p.named('txIndex', p.index),
    p.address,
    codec('startKey', lenientHashKey),
    p.named('limit', p.index),
  ],
  handler: async (ctx: RpcContext, [ref, txIndex, address, startKey, limit]) => {
    const block = await ctx.chain.resolve(ref)
    if (!block) return EMPTY_RANGE
    const read = (state: StateManager) =>
      readStorageRange(state, address, bytesToBigint(startKey), Number(limit), ctx.chain.trieDb.preimages)
    try {
      const index = Number(txIndex)
      if (txIndex < BigInt(block.transactions.length)) {
        const out = await replayBlock(
          ctx.chain,
          block,
          (_tx, i) => (i === index ? storageReader(read) : undefined),
          index,
        )
        return out.get(index)
      }
      const parent = block.header.number > 0n ? await ctx.chain.getBlockByHash(block.header.parentHash) : undefined
      return parent ? await read(ctx.chain.stateAt(parent)) : EMPTY_RANGE
    } catch (e) {
      if (e instanceof StateUnavailableError) return EMPTY_RANGE
      throw tracingError(e)
    }
  },
})
