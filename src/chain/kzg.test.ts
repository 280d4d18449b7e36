import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { getBlobs } from '@ethereumjs/util'
import { describe, expect, it } from '../runtime/testing.ts'
import { computeCellProofs, ensureKzgFor, verifySidecar } from './kzg.ts'

interface Kzg {
  blobToKzgCommitment(blob: string): string
  computeBlobProof(blob: string, commitment: string): string
  computeCellsAndProofs(blob: string): [string[], string[]]
}

describe('KZG work in the worker', () => {
  it("verifies sidecars and computes cell proofs as the main thread's KZG does", async () => {
    const common = createCustomCommon({ chainId: 1337 }, Mainnet, { hardfork: Hardfork.Osaka })
    await ensureKzgFor(common)
    const kzg = common.customCrypto.kzg as unknown as Kzg
    const blob = getBlobs('basalt worker')[0] // each field element below the BLS modulus: a first byte under 0x73
    const commitment = kzg.blobToKzgCommitment(blob)
    const proof = kzg.computeBlobProof(blob, commitment)
    const [, cellProofs] = kzg.computeCellsAndProofs(blob)

    expect(await computeCellProofs(common, blob)).toEqual(cellProofs)
    const blobCheck = { kind: 'blobProofs' as const, blobs: [blob], commitments: [commitment], proofs: [proof] }
    expect(await verifySidecar(common, blobCheck)).toBeUndefined()
    const indices = Array.from({ length: 128 }, (_, i) => i)
    const cellCheck = { kind: 'cellProofs' as const, blobs: [blob], commitments: Array(128).fill(commitment), indices }
    expect(await verifySidecar(common, { ...cellCheck, proofs: cellProofs })).toBeUndefined()
    const wrong = [cellProofs[1], cellProofs[0], ...cellProofs.slice(2)]
    expect(await verifySidecar(common, { ...cellCheck, proofs: wrong })).toBe(
      'KZG proof cannot be verified from blobs/commitments',
    )
    // A blob whose field elements exceed the BLS modulus: its cells cannot be computed.
    const invalid = { ...cellCheck, blobs: [`0x${'ff'.repeat(131_072)}`], proofs: cellProofs }
    expect(await verifySidecar(common, invalid)).toStartWith('KZG verification of blobs fail with error=')
  }, 180_000)
})
