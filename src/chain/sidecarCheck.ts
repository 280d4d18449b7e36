/**
 * The KZG part of checking a blob transaction's sidecar, split from decoding so that it can run in
 * the KZG worker thread: the decoder records what the library would verify (a `SidecarCheck`) and
 * the worker verifies it with its own KZG. The outcomes and their messages are the library's own
 * (@ethereumjs/tx `createBlob4844TxFromSerializedNetworkWrapper`), so a refusal reads as before.
 */

/** What verifying one sidecar takes: blob proofs (EIP-4844) or cell proofs (EIP-7594). */
export type SidecarCheck =
  | { kind: 'blobProofs'; blobs: string[]; commitments: string[]; proofs: string[] }
  | { kind: 'cellProofs'; blobs: string[]; commitments: string[]; indices: number[]; proofs: string[] }

interface SidecarKzg {
  computeCellsAndProofs(blob: string): [string[], string[]]
  verifyBlobProofBatch(blobs: string[], commitments: string[], proofs: string[]): boolean
  computeCells(blob: string): string[]
  verifyCellKzgProofBatch(commitments: string[], indices: number[], cells: string[], proofs: string[]): boolean
}

/** Verifies `check` with `kzg`; resolves to the library's refusal message, or undefined when valid. */
export function runSidecarCheck(kzg: unknown, check: SidecarCheck): string | undefined {
  const k = kzg as SidecarKzg
  let isValid: boolean
  try {
    if (check.kind === 'blobProofs') isValid = k.verifyBlobProofBatch(check.blobs, check.commitments, check.proofs)
    else {
      const cells = check.blobs.flatMap((blob) => k.computeCells(blob))
      isValid = k.verifyCellKzgProofBatch(check.commitments, check.indices, cells, check.proofs)
    }
  } catch (error) {
    return `KZG verification of blobs fail with error=${error}`
  }
  return isValid ? undefined : 'KZG proof cannot be verified from blobs/commitments'
}

/** The EIP-7594 cell proofs of `blob` (for a bundle whose transaction came with one proof per blob). */
export function cellProofsOf(kzg: unknown, blob: string): string[] {
  return (kzg as SidecarKzg).computeCellsAndProofs(blob)[1]
}

/**
 * A KZG for the decoder that verifies nothing: it records the sidecar check the library asks for and
 * lets decoding go on as if it passed. `check()` is the recorded check, if decoding got that far.
 */
export function recordingKzg(): { kzg: unknown; check(): SidecarCheck | undefined } {
  let recorded: SidecarCheck | undefined
  const cellBlobs: string[] = []
  const kzg: Omit<SidecarKzg, 'computeCellsAndProofs'> = {
    verifyBlobProofBatch(blobs, commitments, proofs) {
      recorded = { kind: 'blobProofs', blobs, commitments, proofs }
      return true
    },
    computeCells(blob) {
      cellBlobs.push(blob)
      return []
    },
    verifyCellKzgProofBatch(commitments, indices, _cells, proofs) {
      recorded = { kind: 'cellProofs', blobs: [...cellBlobs], commitments, indices, proofs }
      return true
    },
  }
  const notDecoding = new Proxy(kzg, {
    get: (target, prop) =>
      prop in target
        ? target[prop as keyof typeof kzg]
        : () => {
            throw new Error('kzg not initialized: the KZG trusted setup is not loaded yet')
          },
  })
  return { kzg: notDecoding, check: () => recorded }
}
