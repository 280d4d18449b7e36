/**
 * Sending that waits for the receipt (EIP-7966 `eth_sendRawTransactionSync`, and Anvil's
 * `eth_sendTransactionSync` for the unlocked or impersonated accounts), and geth's and Anvil's
 * `eth_getTransactionBySenderAndNonce`. The wait listens for new blocks, bounded by a timeout:
 * 2 s by default (EIP-7966's recommendation) or two block periods under interval mining, whichever
 * is longer; a request may ask for 1 ms to 60 s.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { RpcError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { formatTransaction } from '../format.ts'
import { findBySenderAndNonce } from '../ots/otsMethods.ts'
import { blockReceipt } from './blockMethods.ts'
import { transactionFromRequest } from './sendTransactionMethod.ts'
import { decodeRawTransaction, submitTransaction } from './txMethods.ts'

const DEFAULT_TIMEOUT_MS = 2_000
const MAX_TIMEOUT_MS = 60_000

/** EIP-7966: an out-of-range timeout falls back to the node's default. */
function timeoutMs(ctx: RpcContext, requested: bigint | undefined): number {
  if (requested !== undefined && requested >= 1n && requested <= BigInt(MAX_TIMEOUT_MS)) return Number(requested)
  const intervalMs = ctx.sealer?.settings().intervalMs ?? 0
  return Math.min(MAX_TIMEOUT_MS, Math.max(DEFAULT_TIMEOUT_MS, 2 * intervalMs))
}

/** Submits `tx` and answers its receipt once a block holds it; EIP-7966's code 4 after `waitMs`. */
async function submitAndWait(ctx: RpcContext, tx: TypedTransaction, waitMs: number): Promise<unknown> {
  let hasNewBlock = false
  let wake = () => {}
  const off = ctx.chain.onNewBlock(() => {
    hasNewBlock = true
    wake()
  })
  try {
    const hash = await submitTransaction(ctx, tx)
    const deadline = Date.now() + waitMs
    for (;;) {
      hasNewBlock = false
      const found = await ctx.chain.findTransaction(tx.hash())
      if (found) return blockReceipt(ctx, found.block, found.index)
      const leftMs = deadline - Date.now()
      if (leftMs <= 0)
        throw new RpcError(4, `The transaction was added to the mempool but wasn't processed in ${waitMs}ms.`, hash)
      if (hasNewBlock) continue
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, leftMs)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake = () => {}
    }
  } finally {
    off()
  }
}

const timeoutParam = p.named('timeout', p.index).optional()

/** Sends a signed transaction and answers its receipt. Spec: https://eips.ethereum.org/EIPS/eip-7966 */
const sendRawTransactionSync = defineMethod({
  name: 'eth_sendRawTransactionSync',
  params: [p.named('transaction', p.data), timeoutParam],
  handler: async (ctx: RpcContext, [raw, timeout]) =>
    submitAndWait(ctx, await decodeRawTransaction(ctx, raw), timeoutMs(ctx, timeout)),
})

/** Anvil's `eth_sendTransaction` that answers the receipt (the same waiting as EIP-7966). */
const sendTransactionSync = defineMethod({
  name: 'eth_sendTransactionSync',
  params: [p.named('transaction', p.object), timeoutParam],
  handler: async (ctx: RpcContext, [raw, timeout]) =>
    submitAndWait(ctx, await transactionFromRequest(ctx, raw), timeoutMs(ctx, timeout)),
})

/**
 * The transaction of `sender` with `nonce`: mined (with its block), or still in the pool; `null`
 * otherwise. geth and Anvil answer it.
 */
const getTransactionBySenderAndNonce = defineMethod({
  name: 'eth_getTransactionBySenderAndNonce',
  besu: { kinds: ['address', 'nonce'], count: 2 },
  params: [p.address, p.named('nonce', p.index)],
  handler: async (ctx: RpcContext, [sender, nonce]) => {
    const found = await findBySenderAndNonce(ctx, sender, nonce)
    if (found) {
      const { block, index } = found
      return formatTransaction(block.transactions[index], ctx.chain.getSenders(block)[index], { block, index })
    }
    const senderHex = bytesToHex(sender)
    const pooled = ctx.pool.all().find((t) => t.nonce === nonce && t.senderHex === senderHex)
    return pooled ? formatTransaction(pooled.tx, pooled.sender) : null
  },
})

export const sendSyncMethods = [sendRawTransactionSync, sendTransactionSync, getTransactionBySenderAndNonce]
