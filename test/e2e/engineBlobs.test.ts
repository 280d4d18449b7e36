/**
 * A blob transaction through the Engine API: pooled via eth_sendRawTransaction on the engine port,
 * served by engine_getBlobsV1, bundled by getPayloadV3 and checked against the expected versioned
 * hashes by newPayloadV3. The node verifies the proofs with the KZG trusted setup put in its data
 * path first (loaded once per test process, shared with blobVerify.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { RLP } from '@ethereumjs/rlp'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, concat, type Hex, hexToBytes } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ACCOUNTS, type EngineNode, startEngineNode, ZERO32 } from './engineHarness.ts'

let en: EngineNode
const BEACON_ROOT = `0x${'be'.repeat(32)}`

beforeAll(async () => {
  en = await startEngineNode()
}, 150_000)
afterAll(async () => {
  await en?.node.cleanup()
})

/**
 * A blob transaction carrying the zero blob, whose KZG commitment and proof are both the point at
 * infinity: the test needs no KZG library, while the node still verifies the proof.
 */
async function signedBlobTx() {
  const commitment = `0xc0${'00'.repeat(47)}` as Hex
  const hash = sha256(hexToBytes(commitment))
  hash[0] = 1
  const versionedHash = bytesToHex(hash)
  const raw = await privateKeyToAccount(ACCOUNTS[2].privateKey as Hex).signTransaction({
    type: 'eip4844',
    chainId: 1337,
    nonce: 0,
    to: `0x${'b1'.repeat(20)}`,
    value: 0n,
    gas: 21_000n,
    maxFeePerGas: 20_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerBlobGas: 1_000_000_000n,
    blobVersionedHashes: [versionedHash],
    sidecars: [{ blob: `0x${'00'.repeat(131072)}`, commitment, proof: commitment }],
  })
  return { raw, versionedHash }
}

describe('blob transactions', () => {
  it('serves pooled blobs and bundles them with the payload that includes them', async () => {
    const { raw, versionedHash } = await signedBlobTx()
    await en.rpc('eth_sendRawTransaction', [raw])
    expect(en.node.output()).toContain('KZG trusted setup restored')
    const blobs = await en.rpc('engine_getBlobsV1', [[versionedHash, ZERO32]])
    expect(blobs[0].blob).toHaveLength(2 + 131072 * 2)
    expect(blobs[0].proof).toHaveLength(2 + 48 * 2)
    expect(blobs[1]).toBeNull()

    const parent = await en.rpc('eth_getBlockByNumber', ['latest', false])
    const fcu = await en.rpc('engine_forkchoiceUpdatedV3', [
      { headBlockHash: parent.hash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      {
        timestamp: `0x${Math.floor(Date.now() / 1000).toString(16)}`,
        prevRandao: ZERO32,
        suggestedFeeRecipient: `0x${'fe'.repeat(20)}`,
        withdrawals: [],
        parentBeaconBlockRoot: BEACON_ROOT,
      },
    ])
    const envelope = await en.rpc('engine_getPayloadV3', [fcu.payloadId])
    const payload = envelope.executionPayload
    expect(payload.transactions).toHaveLength(1)
    expect(payload.blobGasUsed).toBe('0x20000')
    expect(envelope.blobsBundle.blobs).toEqual([blobs[0].blob])
    expect(envelope.blobsBundle.proofs).toEqual([blobs[0].proof])
    expect(envelope.blobsBundle.commitments).toHaveLength(1)

    const mismatch = await en.rpc('engine_newPayloadV3', [payload, [ZERO32], BEACON_ROOT])
    expect(mismatch).toMatchObject({ status: 'INVALID', latestValidHash: null })
    const ok = await en.rpc('engine_newPayloadV3', [payload, [versionedHash], BEACON_ROOT])
    expect(ok).toEqual({ status: 'VALID', latestValidHash: payload.blockHash, validationError: null })
    await en.rpc('engine_forkchoiceUpdatedV3', [
      { headBlockHash: payload.blockHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      null,
    ])
    const block = await en.rpc('eth_getBlockByNumber', ['latest', false])
    expect(block.hash).toBe(payload.blockHash)
    expect(block.blobGasUsed).toBe('0x20000')
  }, 120_000)

  it('refuses a cell-proof (version 1) sidecar before Osaka as Besu does', async () => {
    const { raw } = await signedBlobTx()
    // Rewrap [tx, blobs, commitments, proofs] as [tx, 1, blobs, commitments, 128 cell proofs]: the
    // zero blob's cell proofs are all the point at infinity, so only the fork makes it wrong.
    const [tx, blobs, commitments] = RLP.decode(hexToBytes(raw).subarray(1)) as Uint8Array[][]
    const cellProofs = Array.from({ length: 128 }, () => hexToBytes(`0xc0${'00'.repeat(47)}`))
    const v1 = concat([new Uint8Array([3]), RLP.encode([tx, new Uint8Array([1]), blobs, commitments, cellProofs])])
    const res = await en.call('eth_sendRawTransaction', [bytesToHex(v1)])
    expect(res.json.error).toEqual({ code: -32603, message: 'blobs failed kzg validation' })
  }, 120_000)
})
