/**
 * Answers to eth/68 requests, read from our chain: headers by number or hash (with skip and
 * direction), bodies, and receipts, each capped in count as other clients cap them.
 */
import type { BlockHeader } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import type { Chain } from '../../chain/chain.ts'
import type { HeaderQuery } from './messages.ts'

export const MAX_HEADERS_SERVED = 1024
export const MAX_BODIES_SERVED = 256
export const MAX_RECEIPTS_SERVED = 256

type Nested = Uint8Array | Nested[]

function headerAt(chain: Chain, n: bigint): BlockHeader | undefined {
  if (n < 0n) return undefined
  const hash = chain.store.readCanonicalHash(n)
  return hash ? chain.getHeaderByHash(hash) : undefined
}

/** The headers a GetBlockHeaders query names, as raw RLP lists, stopping at the first one missing. */
export function serveHeaders(chain: Chain, q: HeaderQuery): Nested[] {
  const amount = Math.min(q.amount, MAX_HEADERS_SERVED)
  const out: Nested[] = []
  let header = q.origin instanceof Uint8Array ? chain.getHeaderByHash(q.origin) : headerAt(chain, q.origin)
  const step = BigInt(q.skip + 1)
  while (header && out.length < amount) {
    out.push(header.raw() as Nested[])
    if (q.reverse && q.skip === 0) {
      // Walking parents also serves a side branch named by hash.
      header = header.number === 0n ? undefined : chain.getHeaderByHash(header.parentHash)
    } else {
      header = headerAt(chain, q.reverse ? header.number - step : header.number + step)
    }
  }
  return out
}

/** Bodies (`[transactions, ommers, withdrawals?]`) of the blocks we hold, in order, skipping unknown ones. */
export async function serveBodies(chain: Chain, hashes: Uint8Array[]): Promise<Nested[]> {
  const out: Nested[] = []
  for (const hash of hashes.slice(0, MAX_BODIES_SERVED)) {
    const block = await chain.getBlockByHash(hash)
    if (block) out.push((block.raw() as Nested[]).slice(1))
  }
  return out
}

/** Each block's receipts in their consensus form (legacy as a list, typed as bytes), skipping unknown blocks. */
export function serveReceipts(chain: Chain, hashes: Uint8Array[]): Nested[] {
  const out: Nested[] = []
  for (const hash of hashes.slice(0, MAX_RECEIPTS_SERVED)) {
    const stored = chain.store.readReceiptsRlp(hash)
    if (!stored) continue
    const items = RLP.decode(stored) as Uint8Array[]
    out.push(items.map((r) => (r[0] >= 0xc0 ? (RLP.decode(r) as Nested) : r)))
  }
  return out
}
