/**
 * The OTS group: Otterscan's API (level 8), what the Otterscan block explorer asks a node besides
 * the standard methods. Block pages, traces and errors of transactions (from the call tracer),
 * contract creators and senders' nonces (by binary search over the archive state), and an address's
 * transactions (by scanning blocks, bounded). Spec: otterscan docs/custom-jsonrpc.md
 */
import type { Block } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'
import { type CallFrame, CallTracer } from '../../evm/tracers/callTracer.ts'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError } from '../../jsonrpc/errors.ts'
import { bytesToHex, equalBytes, toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { traceTransactionAt } from '../debug/traceRunner.ts'
import { blockReceipts } from '../eth/blockMethods.ts'
import { requireBlock } from '../eth/resolveBlock.ts'
import { formatBlock } from '../format.ts'
import { searchTransactions } from './otsSearch.ts'

/** The Otterscan API level this node implements. */
const API_LEVEL = 8

async function blockAt(ctx: RpcContext, n: bigint): Promise<Block> {
  const block = await ctx.chain.getBlockByNumber(n)
  if (!block) throw besuError('blockNotFound', `block ${n} not found`)
  return block
}

/** What the block's transactions paid for gas (tips and the burnt base fee). */
function totalFees(ctx: RpcContext, block: Block): bigint {
  let fees = 0n
  for (const r of blockReceipts(ctx, block)) fees += BigInt(r.gasUsed as string) * BigInt(r.effectiveGasPrice as string)
  return fees
}

/** A block's details as Otterscan shows them; null for no block. */
function blockDetails(ctx: RpcContext, block: Block | undefined) {
  if (!block) return null
  const { transactions, logsBloom: _bloom, ...rest } = formatBlock(block, false) as Record<string, unknown>
  return {
    block: { ...rest, transactionCount: (transactions as unknown[]).length, logsBloom: null },
    // Post-merge blocks issue nothing: rewards come from the consensus layer.
    issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
    totalFees: toQuantity(totalFees(ctx, block)),
  }
}

async function callTree(ctx: RpcContext, hash: Uint8Array): Promise<CallFrame> {
  const found = await ctx.chain.findTransaction(hash)
  if (!found) throw besuError('transactionNotFound', 'transaction not found')
  return traceTransactionAt(ctx, found.block, found.index, new CallTracer({ withSelfdestructs: true }))
}

function flatten(frame: CallFrame, depth: number, out: Record<string, unknown>[]): Record<string, unknown>[] {
  out.push({
    type: frame.type,
    depth,
    from: bytesToHex(frame.from),
    to: frame.to ? bytesToHex(frame.to) : null,
    value: frame.value === undefined ? null : toQuantity(frame.value),
    input: bytesToHex(frame.input),
    output: bytesToHex(frame.output),
  })
  for (const c of frame.calls) flatten(c, depth + 1, out)
  return out
}

/** Otterscan's kinds of internal operation: 0 transfer, 1 self-destruct, 2 create, 3 create2. */
const OPERATION: Partial<Record<CallFrame['type'], number>> = { CALL: 0, SELFDESTRUCT: 1, CREATE: 2, CREATE2: 3 }

function internalOperations(
  frame: CallFrame,
  depth: number,
  out: Record<string, unknown>[],
): Record<string, unknown>[] {
  const kind = OPERATION[frame.type]
  const isTransfer = kind === 0 && (frame.value ?? 0n) > 0n
  if (depth > 0 && kind !== undefined && (kind !== 0 || isTransfer) && !frame.error) {
    out.push({
      type: kind,
      from: bytesToHex(frame.from),
      to: frame.to ? bytesToHex(frame.to) : null,
      value: toQuantity(frame.value ?? 0n),
    })
  }
  for (const c of frame.calls) internalOperations(c, depth + 1, out)
  return out
}

async function nonceAt(ctx: RpcContext, block: Block, address: Address): Promise<bigint> {
  return (await ctx.chain.stateAt(block).getAccount(address))?.nonce ?? 0n
}

/**
 * The first block at which `isReached` holds (it holds at the head); binary search over the chain
 * from its first block (a forked chain's fork block).
 */
async function firstBlockWhere(ctx: RpcContext, isReached: (b: Block) => Promise<boolean>): Promise<Block> {
  let lo = ctx.chain.genesis.header.number
  let hi = ctx.chain.head.header.number
  while (lo < hi) {
    const mid = (lo + hi) / 2n
    if (await isReached(await blockAt(ctx, mid))) hi = mid
    else lo = mid + 1n
  }
  return blockAt(ctx, lo)
}

/**
 * The canonical transaction of `sender` with `nonce`: found by a binary search for the block where
 * the sender's nonce passes it (no index by sender needed).
 */
export async function findBySenderAndNonce(
  ctx: RpcContext,
  sender: Uint8Array,
  nonce: bigint,
): Promise<{ block: Block; index: number } | undefined> {
  const address = new Address(sender)
  if ((await nonceAt(ctx, ctx.chain.head, address)) <= nonce) return undefined
  const block = await firstBlockWhere(ctx, async (b) => (await nonceAt(ctx, b, address)) > nonce)
  const senders = ctx.chain.getSenders(block)
  const index = block.transactions.findIndex((tx, k) => tx.nonce === nonce && equalBytes(senders[k], sender))
  return index < 0 ? undefined : { block, index }
}

export const otsMethods = [
  defineMethod({ name: 'ots_getApiLevel', params: [], handler: () => API_LEVEL }),
  defineMethod({
    name: 'ots_hasCode',
    params: [p.address, p.block.optional('latest')],
    handler: async (ctx: RpcContext, [address, ref]) =>
      (await ctx.chain.stateAt(await requireBlock(ctx, ref)).getCode(new Address(address))).length > 0,
  }),
  defineMethod({
    name: 'ots_getBlockDetails',
    params: [p.blockNumberOrTag],
    handler: async (ctx: RpcContext, [ref]) => blockDetails(ctx, await ctx.chain.resolve(ref)),
  }),
  defineMethod({
    name: 'ots_getBlockDetailsByHash',
    params: [p.hash],
    handler: async (ctx: RpcContext, [hash]) => blockDetails(ctx, await ctx.chain.getBlockByHash(hash)),
  }),
  defineMethod({
    name: 'ots_getBlockTransactions',
    params: [p.blockNumberOrTag, p.named('pageNumber', p.index), p.named('pageSize', p.index)],
    handler: async (ctx: RpcContext, [ref, page, size]) => {
      const block = await ctx.chain.resolve(ref)
      if (!block) return null
      // Pages count from the end of the block, as Erigon's implementation does.
      const count = block.transactions.length
      const end = Math.max(0, count - Number(page * size))
      const start = Math.max(0, end - Number(size))
      const full = formatBlock(block, true, ctx.chain.getSenders(block)) as Record<string, unknown>
      const receipts = blockReceipts(ctx, block).slice(start, end)
      return {
        fullblock: {
          ...full,
          transactions: (full.transactions as unknown[]).slice(start, end),
          transactionCount: count,
          logsBloom: null,
        },
        receipts: receipts.map((r) => ({ ...r, logs: null, logsBloom: null })),
      }
    },
  }),
  defineMethod({
    name: 'ots_getTransactionError',
    params: [p.hash],
    handler: async (ctx: RpcContext, [hash]) => {
      const root = await callTree(ctx, hash)
      return root.error ? bytesToHex(root.output) : '0x'
    },
  }),
  defineMethod({
    name: 'ots_traceTransaction',
    params: [p.hash],
    handler: async (ctx: RpcContext, [hash]) => flatten(await callTree(ctx, hash), 0, []),
  }),
  defineMethod({
    name: 'ots_getInternalOperations',
    params: [p.hash],
    handler: async (ctx: RpcContext, [hash]) => internalOperations(await callTree(ctx, hash), 0, []),
  }),
  defineMethod({
    name: 'ots_getTransactionBySenderAndNonce',
    params: [p.address, p.named('nonce', p.index)],
    handler: async (ctx: RpcContext, [sender, nonce]) => {
      const found = await findBySenderAndNonce(ctx, sender, nonce)
      return found ? bytesToHex(found.block.transactions[found.index].hash()) : null
    },
  }),
  defineMethod({
    name: 'ots_getContractCreator',
    params: [p.address],
    handler: async (ctx: RpcContext, [address]) => {
      const a = new Address(address)
      const hasCode = async (b: Block) => (await ctx.chain.stateAt(b).getCode(a)).length > 0
      if (!(await hasCode(ctx.chain.head))) return null
      const block = await firstBlockWhere(ctx, hasCode)
      for (let i = 0; i < block.transactions.length; i++) {
        const hash = block.transactions[i].hash()
        const creator = findCreator(await callTree(ctx, hash), address)
        if (creator) return { hash: bytesToHex(hash), creator: bytesToHex(creator) }
      }
      // Code set by the dev tools or present at genesis: no transaction created it.
      return null
    },
  }),
  defineMethod({
    name: 'ots_searchTransactionsBefore',
    params: [p.address, p.named('blockNumber', p.index), p.named('pageSize', p.index)],
    handler: (ctx: RpcContext, [address, from, size]) => searchTransactions(ctx, address, from, size, 'before'),
  }),
  defineMethod({
    name: 'ots_searchTransactionsAfter',
    params: [p.address, p.named('blockNumber', p.index), p.named('pageSize', p.index)],
    handler: (ctx: RpcContext, [address, from, size]) => searchTransactions(ctx, address, from, size, 'after'),
  }),
]

function findCreator(frame: CallFrame, address: Uint8Array): Uint8Array | undefined {
  if (
    (frame.type === 'CREATE' || frame.type === 'CREATE2') &&
    frame.to &&
    equalBytes(frame.to, address) &&
    !frame.error
  )
    return frame.from
  for (const c of frame.calls) {
    const found = findCreator(c, address)
    if (found) return found
  }
  return undefined
}
