import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { createBlob4844Tx, createBlob4844TxFromSerializedNetworkWrapper } from '@ethereumjs/tx'
import { commitmentsToVersionedHashes, getBlobs, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from '../runtime/testing.ts'
import { recordingKzg, runSidecarCheck, type SidecarCheck } from './sidecarCheck.ts'

type Hex = `0x${string}`
const KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const BLOB = getBlobs('basalt sidecar')[0] as Hex
const COMMITMENT = `0xc0${'11'.repeat(47)}` as Hex
const PROOF = `0xc0${'22'.repeat(47)}` as Hex

/** A signed one-blob transaction in network form; its proofs are arbitrary (nothing verifies here). */
function networkTx(
  wrapperVersion: 0 | 1,
  hashes?: Hex[],
): { raw: Uint8Array; common: ReturnType<typeof createCustomCommon> } {
  const common = createCustomCommon({ chainId: 1337 }, Mainnet, {
    hardfork: wrapperVersion === 1 ? Hardfork.Osaka : Hardfork.Prague,
    customCrypto: { kzg: {} } as never,
  })
  const proofs = Array<Hex>(wrapperVersion === 1 ? 128 : 1).fill(PROOF)
  const tx = createBlob4844Tx(
    {
      to: '0x000000000000000000000000000000000000b10b',
      gasLimit: 21_000n,
      maxFeePerGas: 10n,
      maxFeePerBlobGas: 10n,
      networkWrapperVersion: wrapperVersion,
      blobs: [BLOB],
      kzgCommitments: [COMMITMENT],
      kzgProofs: proofs,
      blobVersionedHashes: hashes ?? commitmentsToVersionedHashes([COMMITMENT]),
    },
    { common },
  ).sign(KEY)
  return { raw: tx.serializeNetworkWrapper(), common }
}

function decodeRecording(raw: Uint8Array, common: ReturnType<typeof createCustomCommon>) {
  const recorder = recordingKzg()
  ;(common.customCrypto as { kzg?: unknown }).kzg = recorder.kzg
  let error: unknown
  try {
    createBlob4844TxFromSerializedNetworkWrapper(raw, { common })
  } catch (e) {
    error = e
  }
  return { check: recorder.check(), error }
}

describe('recordingKzg', () => {
  it('records the blob-proof check of a version 0 sidecar and lets decoding finish', () => {
    const { raw, common } = networkTx(0)
    const { check, error } = decodeRecording(raw, common)
    expect(error).toBeUndefined()
    expect(check).toEqual({ kind: 'blobProofs', blobs: [BLOB], commitments: [COMMITMENT], proofs: [PROOF] })
  })

  it("records a version 1 sidecar's cells to compute and the 128 cell proofs to check", () => {
    const { raw, common } = networkTx(1)
    const { check, error } = decodeRecording(raw, common)
    expect(error).toBeUndefined()
    if (check?.kind !== 'cellProofs') throw new Error(`recorded ${check?.kind}`)
    expect(check.blobs).toEqual([BLOB])
    expect(check.commitments).toEqual(Array(128).fill(COMMITMENT))
    expect(check.indices).toEqual(Array.from({ length: 128 }, (_, i) => i))
    expect(check.proofs).toHaveLength(128)
  })

  it('has recorded the check when a later step of decoding fails (a versioned hash)', () => {
    const { raw, common } = networkTx(0, [`0x01${'00'.repeat(31)}`])
    const { check, error } = decodeRecording(raw, common)
    expect((error as Error).message).toContain('does not match versionedHash')
    expect(check?.kind).toBe('blobProofs')
  })
})

describe('runSidecarCheck', () => {
  const check: SidecarCheck = { kind: 'cellProofs', blobs: [BLOB], commitments: [], indices: [], proofs: [] }
  const kzg = (verify: () => boolean) => ({ computeCells: () => ['0x01'], verifyCellKzgProofBatch: verify })

  it('passes proofs that verify', () => {
    expect(
      runSidecarCheck(
        kzg(() => true),
        check,
      ),
    ).toBeUndefined()
  })

  it("refuses with the library's messages proofs that fail or cannot be checked", () => {
    expect(
      runSidecarCheck(
        kzg(() => false),
        check,
      ),
    ).toBe('KZG proof cannot be verified from blobs/commitments')
    const throwing = kzg(() => {
      throw new Error('bad point')
    })
    expect(runSidecarCheck(throwing, check)).toBe('KZG verification of blobs fail with error=Error: bad point')
  })
})
