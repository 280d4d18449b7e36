/**
 * debug_accountAt and debug_accountRange: an account as a transaction of a block starts, or a page of
 * the account trie after a block (as debug_storageRangeAt reads storage). Besu reference:
 * DebugAccountAt, DebugAccountRange.
 */
import type { Block } from '@ethereumjs/block'
import type { EVM, InterpreterStep } from '@ethereumjs/evm'
import { Address, KECCAK256_NULL } from '@ethereumjs/util'
import type { TxTracer } from '../../evm/tracers/txTracer.ts'
import { codec, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { BESU_PARAM_ERRORS, besuError, InternalError, InvalidParamsError, RpcError } from '../../jsonrpc/errors.ts'
import { bytesToBigint, bytesToHex, hexToBytes, padHex, toQuantity } from '../../primitives/hex.ts'
import { StateUnavailableError } from '../../state/bonsaiState.ts'
import type { StateManager } from '../../state/worldState.ts'
import type { RpcContext } from '../context.ts'
import { lenientHashKey } from '../eth/proofMethods.ts'
import { traceTransactionAt } from './traceRunner.ts'

const ZERO_HASH = padHex('0x', 32)
const ZERO_ADDRESS = padHex('0x', 20)

async function blockAt(ctx: RpcContext, ref: Parameters<RpcContext['chain']['resolve']>[0]): Promise<Block> {
  const block = await ctx.chain.resolve(ref)
  if (!block) throw besuError('blockNotFound')
  return block
}

/**
 * Besu's DebugAccountAt: a block without transactions, or an index past the count, is refused with
 * its transaction-params text; an index equal to the count passes that check and fails inside its
 * trace (an index out of bounds): -32603.
 */
function requireTxIndex(block: Block, txIndex: bigint): number {
  const count = BigInt(block.transactions.length)
  if (count === 0n || txIndex > count) throw new InvalidParamsError(BESU_PARAM_ERRORS.transaction)
  if (txIndex === count) throw new InternalError()
  return Number(txIndex)
}

/**
 * The state as the transaction's first instruction sees it (gas bought, nonce raised, value sent),
 * read by `read`; undefined when the transaction runs no instruction (a transfer to an account
 * without code). Besu's DebugAccountAt reads the account from the first frame of its trace.
 */
function firstStepReader<R>(read: (state: StateManager) => Promise<R>): TxTracer<R | undefined> {
  let evm: EVM | undefined
  let pending: Promise<R> | undefined
  const onStep = (s: InterpreterStep, done?: () => void): void => {
    if (pending) {
      done?.()
      return
    }
    pending = read(s.stateManager as StateManager)
    pending.then(done, done)
  }
  return {
    start: ({ vm }) => {
      evm = vm.evm as EVM
      evm.events.on('step', onStep)
    },
    finish: async () => {
      evm?.events.off('step', onStep)
      return pending
    },
  }
}

/** Besu's Quantity of bytes: the hex digits without leading zeros, `0x0` for none. */
const bytesQuantity = (b: Uint8Array) => toQuantity(bytesToBigint(b))

/**
 * Code, nonce, balance and code hash of an account as transaction `txIndex` of a block starts to
 * execute, in Besu's shapes (code and code hash as quantities: `0x0` for no code). A transaction
 * that runs no code shows no account: -32000 Account not found, as Besu answers.
 */
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
      if (!account) return undefined
      const code = await state.getCode(addr)
      return {
        code: bytesQuantity(code),
        nonce: toQuantity(account.nonce),
        balance: toQuantity(account.balance),
        codehash: bytesQuantity(code.length > 0 ? account.codeHash : KECCAK256_NULL),
      }
    }
    const found = await traceTransactionAt(ctx, block, index, firstStepReader(read))
    if (!found) throw new RpcError(-32000, 'Account not found')
    return found
  },
})

/**
 * Addresses of the account trie after a block from `startKey` (a hashed address) on, at most
 * `limit`, as `{addressMap: {hashedAddress: address}, nextKey}`. The trie stores hashed keys only; the address
 * comes from the preimage table (state/preimages.ts), and an account written before that table
 * existed reads as the zero address, as Besu answers for a key without a preimage.
 */
export const accountRange = defineMethod({
  name: 'debug_accountRange',
  besu: { kinds: ['block', 'transactionIndex', 'addressHash', 'maxResults'] },
  params: [p.block, p.named('txIndex', p.index), codec('startKey', lenientHashKey), p.named('limit', p.index)],
  handler: async (ctx: RpcContext, [ref, _txIndex, startKey, limit]) => {
    // An unknown block is an empty page with no next key, as Besu answers it (not an error).
    const block = await ctx.chain.resolve(ref)
    if (!block) return { addressMap: {}, nextKey: null }
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
    // Besu reads the state after the whole block, whatever the index (which it leaves unread), and
    // answers a state it does not keep as an unknown block.
    try {
      return await read(ctx.chain.stateAt(block))
    } catch (e) {
      if (e instanceof StateUnavailableError) return { addressMap: {}, nextKey: null }
      throw e
    }
  },
})

interface ValueMap {
  values: Record<string, string>
}

export const accountMethods = [accountAt, accountRange]
