import type { Block } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'

/**
 * Gives a block's transactions (unless frozen) the senders stored with it, so that nothing recovers them
 * again and a transaction sent as an impersonated account (whose signature names no one) re-executes
 * as the account that sent it.
 */
export function useStoredSenders(block: Block, senders: Uint8Array): void {
  if (senders.length !== block.transactions.length * 20) return
  block.transactions.forEach((tx, i) => {
    if (Object.isFrozen(tx)) return
    const sender = new Address(senders.slice(i * 20, i * 20 + 20))
    tx.getSenderAddress = () => sender
  })
}

/**
 * Freezes a stored block's header, which makes `hash()` keep its value: an unfrozen header (the
 * library's default is frozen) hashes its RLP again on every call, and every state read at a block
 * asks for its hash. The block itself stays open for the senders above.
 */
export function keepHeaderHash(block: Block): void {
  if (!Object.isFrozen(block.header)) Object.freeze(block.header)
}
