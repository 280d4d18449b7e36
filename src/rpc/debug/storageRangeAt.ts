/** debug_storageRangeAt: a page of a contract's storage after a transaction, in hashed-key order. */
import { Address } from '@ethereumjs/util'
import type { TxTracer } from '../../evm/tracers/txTracer.ts'
import { codec, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../../jsonrpc/errors.ts'
import { bytesToBigint, bytesToHex, type Hex, hexToBytes, padHex } from '../../primitives/hex.ts'
import type { PreimageTable } from '../../state/preimages.ts'
import type { StateManager } from '../../state/worldState.ts'
import type { RpcContext } from '../context.ts'
import { lenientHashKey } from '../eth/proofMethods.ts'
import { requireBlockByHash, traceTransactionAt } from './traceRunner.ts'

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
 * Not a tracer of execution: it reads the storage range once the transaction has run (Besu's rule).
 * Each slot's `key` comes from the preimage table; null for one written before that table existed.
 */
function storageReader(
  address: Uint8Array,
  startKey: bigint,
  limit: number,
  preimages: PreimageTable | undefined,
): TxTracer<unknown> {
  return {
    start: () => {},
    finish: async ({ vm }) => {
      const state = vm.stateManager as StateManager
      await state.flush()
      const range = await state.dumpStorageRange(new Address(address), startKey, limit)
      for (const [hashed, slot] of Object.entries(range.storage)) {
        const key = preimages?.lookup(hexToBytes(hashed as `0x${string}`))
        slot.key = key ? bytesToHex(key) : null
        slot.value = storageWord(slot.value)
      }
      return range
    },
  }
}

/** Storage of `address` after transaction `txIndex` of a block, from `startKey` (a hashed key) on. */
export const storageRangeAt = defineMethod({
  name: 'debug_storageRangeAt',
  besu: { kinds: ['block', 'transactionIndex', 'address', 'dataHash', 'transactionLimit'] },
  params: [
    p.named('blockHash', p.hash),
    p.named('txIndex', p.index),
    p.address,
    codec('startKey', lenientHashKey),
    p.named('limit', p.index),
  ],
  handler: async (ctx: RpcContext, [blockHash, txIndex, address, startKey, limit]) => {
    const block = await requireBlockByHash(ctx, blockHash)
    if (txIndex >= BigInt(block.transactions.length))
      throw new InvalidParamsError('Invalid params: transaction index out of range')
    return traceTransactionAt(
      ctx,
      block,
      Number(txIndex),
      storageReader(address, bytesToBigint(startKey), Number(limit), ctx.chain.trieDb.preimages),
    )
  },
})
