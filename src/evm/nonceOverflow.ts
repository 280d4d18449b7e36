/**
 * eth_simulateV1 without validation, at a sender nonce of 2^64-1. geth keeps nonces in a uint64
 * and skips every nonce check there, EIP-2681's included: such a sender may send, and the bump
 * wraps its nonce to 0. The library refuses to construct a transaction at that nonce and counts
 * nonces as unbounded bigints; these helpers let the simulator record and run it as geth does.
 */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { type Address, MAX_UINT64 } from '@ethereumjs/util'
import type { BlockBuilder, VM } from '@ethereumjs/vm'

/** Whether this is the nonce (2^64-1) that the library's transactions refuse and geth's accept. */
export function isMaxNonce(nonce: bigint): boolean {
  return nonce === MAX_UINT64
}

/** After a transaction from nonce 2^64-1, wraps the sender's nonce to 0, as geth's uint64 does. */
export async function wrapSenderNonce(vm: VM, sender: Address): Promise<void> {
  const account = await vm.stateManager.getAccount(sender)
  if (account?.nonce !== MAX_UINT64 + 1n) return
  account.nonce = 0n
  await vm.stateManager.putAccount(sender, account)
}

/**
 * `builder.build()`, for blocks holding transactions at nonce 2^64-1. The library hashes the
 * transactions into the header as run, then re-creates them for the block, which refuses that
 * nonce: the re-creation gets stand-ins at nonce 0 and the block gets the transactions back.
 */
export async function buildBlock(builder: BlockBuilder): Promise<Block> {
  const fields = builder as unknown as { transactions: TypedTransaction[] }
  const asRun = fields.transactions
  if (!asRun.some((tx) => isMaxNonce(tx.nonce))) return (await builder.build()).block
  const root = await builder.transactionsTrie()
  Object.assign(builder, { transactionsTrie: async () => root })
  // The re-creation reads only the data fields, so a copy of them serves as the stand-in.
  const standIn = (tx: TypedTransaction) => ({ ...tx, nonce: 0n }) as unknown as TypedTransaction
  fields.transactions = asRun.map((tx) => (isMaxNonce(tx.nonce) ? standIn(tx) : tx))
  const { block } = await builder.build()
  asRun.forEach((tx, i) => {
    if (isMaxNonce(tx.nonce)) block.transactions[i] = tx
  })
  return block
}
