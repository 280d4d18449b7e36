/**
 * `ots_searchTransactionsBefore` / `_After`: an address's transactions, newest first, a page of at
 * least `pageSize` (whole blocks, never split). Appearances are the transactions the address sent,
 * received or created a contract with; internal calls are not indexed. Blocks are scanned one by one
 * (a dev chain is short), at most `MAX_SCANNED_BLOCKS` per request.
 */
import { bytesToHex, equalBytes } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { blockReceipts } from '../eth/blockMethods.ts'
import { formatTransaction } from '../format.ts'

const MAX_SCANNED_BLOCKS = 100_000n

export async function searchTransactions(
  ctx: RpcContext,
  address: Uint8Array,
  fromBlock: bigint,
  pageSize: bigint,
  direction: 'before' | 'after',
) {
  const head = ctx.chain.head.header.number
  const isBefore = direction === 'before'
  // Block 0 means "from the newest" for `before` and "from the oldest" for `after`.
  let n = isBefore ? (fromBlock === 0n ? head : fromBlock - 1n) : fromBlock + 1n
  const txs: unknown[] = []
  const receipts: unknown[] = []
  let scanned = 0n
  let isEnd = false
  while (BigInt(txs.length) < pageSize && scanned < MAX_SCANNED_BLOCKS) {
    if (n < 0n || n > head) {
      isEnd = true
      break
    }
    const block = await ctx.chain.getBlockByNumber(n)
    if (!block) break
    const senders = ctx.chain.getSenders(block)
    const blockReceiptsJson = blockReceipts(ctx, block)
    const found: number[] = []
    block.transactions.forEach((tx, i) => {
      const created = blockReceiptsJson[i].contractAddress as string | null
      const isMine =
        equalBytes(senders[i], address) ||
        (tx.to !== undefined && equalBytes(tx.to.bytes, address)) ||
        created === bytesToHex(address)
      if (isMine) found.push(i)
    })
    // Within a block too, newest first.
    for (const i of found.reverse()) {
      txs.push(formatTransaction(block.transactions[i], senders[i], { block, index: i }))
      receipts.push({ ...blockReceiptsJson[i], timestamp: Number(block.header.timestamp) })
    }
    n += isBefore ? -1n : 1n
    scanned++
  }
  if (!isEnd && (n < 0n || n > head)) isEnd = true
  const isNewestPage = isBefore ? fromBlock === 0n : isEnd
  const isOldestPage = isBefore ? isEnd : fromBlock === 0n
  // `after` collects oldest first; every page is answered newest first.
  if (!isBefore) {
    txs.reverse()
    receipts.reverse()
  }
  return { txs, receipts, firstPage: isNewestPage, lastPage: isOldestPage }
}
