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
