/**
 * Blob sidecars for the consensus client: the blobs bundle of a built payload (BlobsBundleV1 with
 * one proof per blob before Osaka, BlobsBundleV2 with EIP-7594 cell proofs from Osaka) and blob
 * lookups in the pool by versioned hash (engine_getBlobsV1/V2).
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Chain } from '../chain/chain.ts'
import { computeCellProofs } from '../chain/kzg.ts'
import { bytesToHex } from '../primitives/hex.ts'
import type { TxPool } from '../txpool/txPool.ts'

/** Cell proofs per blob under EIP-7594 (CELLS_PER_EXT_BLOB). */
export const CELLS_PER_EXT_BLOB = 128

/** Versioned hashes as the library holds them (hex strings in @ethereumjs/tx 10), in lower-case hex. */
export function blobHashesOf(tx: TypedTransaction): string[] {
  const hashes = (tx as { blobVersionedHashes?: (string | Uint8Array)[] }).blobVersionedHashes ?? []
  return hashes.map((h) => (typeof h === 'string' ? h.toLowerCase() : bytesToHex(h)))
}

interface BlobSidecar {
  blobs?: string[]
  kzgCommitments?: string[]
  kzgProofs?: string[]
}

function sidecar(tx: TypedTransaction): BlobSidecar | undefined {
  const s = tx as unknown as BlobSidecar
  return tx.type === 3 && s.blobs && s.kzgCommitments && s.kzgProofs ? s : undefined
}

/** The proofs of blob `i` of `s`: its one blob proof, or its CELLS_PER_EXT_BLOB cell proofs. */
async function proofsOf(chain: Chain, s: BlobSidecar, i: number, isCellProofs: boolean): Promise<string[]> {
  const proofs = s.kzgProofs!
  const hasCellProofs = proofs.length === s.blobs!.length * CELLS_PER_EXT_BLOB
  if (!isCellProofs) return hasCellProofs ? [] : [proofs[i]]
  if (hasCellProofs) return proofs.slice(i * CELLS_PER_EXT_BLOB, (i + 1) * CELLS_PER_EXT_BLOB)
  // Seconds per blob: computed in the KZG worker, off the event loop.
  return computeCellProofs(chain.common, s.blobs![i])
}

/** BlobsBundleV1 (`isCellProofs` false) or BlobsBundleV2 of a payload's blob transactions. */
export async function blobsBundle(chain: Chain, txs: TypedTransaction[], isCellProofs: boolean) {
  const out = { commitments: [] as string[], proofs: [] as string[], blobs: [] as string[] }
  for (const tx of txs) {
    const s = sidecar(tx)
    if (!s) continue
    for (let i = 0; i < s.blobs!.length; i++) {
      out.commitments.push(s.kzgCommitments![i])
      out.blobs.push(s.blobs![i])
      out.proofs.push(...(await proofsOf(chain, s, i, isCellProofs)))
    }
  }
  return out
}

/** The pool's blobs for `hashes`, in order; null where the pool has none (or not with the proof kind asked). */
export async function poolBlobs(chain: Chain, pool: TxPool, hashes: Uint8Array[], isCellProofs: boolean) {
  const wanted = new Set<string>(hashes.map((h) => bytesToHex(h)))
  const found = new Map<string, { blob: string; proofs: string[] }>()
  for (const t of pool.all()) {
    const s = sidecar(t.tx)
    if (!s) continue
    const txHashes = blobHashesOf(t.tx)
    for (let i = 0; i < txHashes.length; i++) {
      const key = txHashes[i]
      if (!wanted.has(key) || found.has(key)) continue
      const proofs = await proofsOf(chain, s, i, isCellProofs)
      if (proofs.length > 0) found.set(key, { blob: s.blobs![i], proofs })
    }
  }
  return hashes.map((h) => found.get(bytesToHex(h)) ?? null)
}
