/**
 * Keeps what the transaction library computes again on every call. Its transactions cache their
 * hash only when frozen, never their encoding, and `getSenderAddress` hashes the recovered public
 * key again each time with `@noble/hashes` (it ignores `customCrypto.keccak256`). A transaction sent
 * to the node is asked for these several times (pool admission, the block's execution, its rows,
 * its receipt's formatting, the log filters), and the block a sealer builds holds new, unfrozen
 * copies of its transactions (`createBlock` makes them again), which the library never caches.
 */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'

/**
 * On an unfrozen signed transaction: its encoding is computed once, and so is its sender's
 * address, with the chain's keccak when it has one. Errors (a signature that recovers no key) are
 * the library's, thrown on each call as before. Called before the transaction is frozen or shared.
 */
export function keepSenderAndEncoding(tx: TypedTransaction): void {
  if (Object.isFrozen(tx)) return
  keepEncoding(tx)
  const keccak = tx.common.customCrypto.keccak256
  if (!keccak) return
  let sender: Address | undefined
  // Same as the library's publicToAddress: the last 20 bytes of the 64-byte key's hash.
  tx.getSenderAddress = () => (sender ??= new Address(keccak(tx.getSenderPublicKey()).subarray(12)))
}

/**
 * A block's unfrozen transactions (a built block's, a stored block's) compute their encoding and
 * hash once. Their contents never change once the block is made.
 */
export function keepTransactionHashes(block: Block): void {
  for (const tx of block.transactions) {
    if (Object.isFrozen(tx)) continue
    keepEncoding(tx)
    const hash = tx.hash.bind(tx)
    let bytes: Uint8Array | undefined
    tx.hash = () => (bytes ??= hash())
  }
}

/**
 * A block made from transactions the builder ran (`createBlock` copies each, field by field) takes
 * each copy's encoding and hash from the transaction it copies, which has them already (the frozen
 * pool transaction caches its hash, `keepSenderAndEncoding` kept its encoding, the transactions
 * trie encoded it). The values are taken, not the transaction, which a cached block would keep alive.
 */
export function shareEncodings(block: Block, from: readonly TypedTransaction[]): void {
  if (from.length !== block.transactions.length) return
  block.transactions.forEach((tx, i) => {
    const source = from[i]
    // A stand-in (eth_simulateV1's nonce 2^64-1, see nonceOverflow.ts) is a field copy with another
    // nonce and no methods: its block transaction keeps its own.
    if (Object.isFrozen(tx) || tx === source || tx.type !== source.type || tx.nonce !== source.nonce) return
    if (typeof source.serialize !== 'function') return
    const bytes = source.serialize()
    tx.serialize = () => bytes
    if (!source.isSigned()) return
    const hash = source.hash()
    tx.hash = () => hash
  })
}

function keepEncoding(tx: TypedTransaction): void {
  const serialize = tx.serialize.bind(tx)
  let bytes: Uint8Array | undefined
  tx.serialize = () => (bytes ??= serialize())
}
