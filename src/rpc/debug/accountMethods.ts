/**
 * debug_accountAt and debug_accountRange: an account, or a page of the account trie, in the state
 * after a transaction of a block (as debug_storageRangeAt reads storage). Besu reference:
 * DebugAccountAt, DebugAccountRange.
 */
import type { Block } from '@ethereumjs/block'
import { Address, KECCAK256_NULL } from '@ethereumjs/util'
import type { TxTracer } from '../../evm/tracers/txTracer.ts'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError, InvalidParamsError, RpcError } from '../../jsonrpc/errors.ts'
import { bytesToBigint, bytesToHex, hexToBytes, padHex, toQuantity } from '../../primitives/hex.ts'
import type { StateManager } from '../../state/worldState.ts'
import type { RpcContext } from '../context.ts'
import { traceTransactionAt } from './traceRunner.ts'

const ZERO_HASH = padHex('0x', 32)
const ZERO_ADDRESS = padHex('0x', 20)

/** Not a tracer of execution: it hands over the state once the transaction has run. */
function stateReader<R>(read: (state: StateManager) => Promise<R>): TxTracer<R> {
  return {
    start: () => {},
    finish: async ({ vm }) => {
      const state = vm.stateManager as StateManager
      await state.flush()
      return read(state)
    },
  }
}

async function blockAt(ctx: RpcContext, ref: Parameters<RpcContext['chain']['resolve']>[0]): Promise<Block> {
  const block = await ctx.chain.resolve(ref)
  if (!block) throw besuError('blockNotFound')
  return block
}

/** Besu's rule: the block must have transactions and the index must name one of them. */
function requireTxIndex(block: Block, txIndex: bigint): number {
  if (txIndex >= BigInt(block.transactions.length))
    throw new InvalidParamsError('Invalid params: transaction index out of range')
  return Number(txIndex)
}

/** Code, nonce, balance and code hash of an account after transaction `txIndex` of a block. */
export const accountAt = defineMethod({
  name: 'debug_accountAt',
  besu: { kinds: ['block', 'transactionIndex', 'address'] },
  params: [p.block, p.named('txIndex', p.index), p.address],
  handler: async (ctx: RpcContext, [ref, txIndex, address]) => {
    const block = await blockAt(ctx, ref)
    const index = requireTxIndex(block, txIndex)
    const read = async (state: StateManager) => {
      const addr = new Address(address)
      const account = await state.getAccount(addr)
      if (!account) throw new RpcError(-32000, 'Account not found')
      const code = await state.getCode(addr)
      return {
        code: bytesToHex(code),
        nonce: toQuantity(account.nonce),
        balance: toQuantity(account.balance),
        codehash: bytesToHex(code.length > 0 ? account.codeHash : KECCAK256_NULL),
      }
    }
    return traceTransactionAt(ctx, block, index, stateReader(read))
  },
})

/**
 * Addresses of the account trie from `startKey` (a hashed address) on, at most `limit`, as
 * `{addressMap: {hashedAddress: address}, nextKey}`. The trie stores hashed keys only; the address
 * comes from the preimage table (state/preimages.ts), and an account written before that table
 * existed reads as the zero address, as Besu answers for a key without a preimage.
 */
export const accountRange = defineMethod({
  name: 'debug_accountRange',
  besu: { kinds: ['block', 'transactionIndex', 'addressHash', 'maxResults'] },
  params: [p.block, p.named('txIndex', p.index), p.named('startKey', p.data), p.named('limit', p.index)],
  handler: async (ctx: RpcContext, [ref, txIndex, startKey, limit]) => {
    const block = await blockAt(ctx, ref)
    if (startKey.length > 32) throw new InvalidParamsError('Invalid params: address hash longer than 32 bytes')
    const read = async (state: StateManager) => {
      const trie = (state as unknown as { _trie: { getValueMap(start: bigint, limit: number): Promise<ValueMap> } })
        ._trie
      // One key past the page: it is the next page's first (the library's own nextKey is the trie's
      // last key, not the one after the page).
      const page = await trie.getValueMap(bytesToBigint(startKey), Number(limit) + 1)
      const keys = Object.keys(page.values)
      const nextKey = keys.length > Number(limit) ? padHex(keys[Number(limit)], 32) : ZERO_HASH
      const addressMap: Record<string, string> = {}
      for (const key of keys.slice(0, Number(limit))) {
        const hashed = padHex(key, 32)
        const address = ctx.chain.trieDb.preimages?.lookup(hexToBytes(hashed))
        addressMap[hashed] = address ? bytesToHex(address) : ZERO_ADDRESS
      }
      return { addressMap, nextKey }
    }
    if (txIndex < BigInt(block.transactions.length))
      return traceTransactionAt(ctx, block, Number(txIndex), stateReader(read))
    return read(ctx.chain.stateAt(block))
  },
})

interface ValueMap {
  values: Record<string, string>
}

export const accountMethods = [accountAt, accountRange]
