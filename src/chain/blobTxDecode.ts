/**
 * Decoding a blob transaction in network form (with its sidecar), as eth_sendRawTransaction and
 * peers' pooled transactions carry it. The library decodes and checks the sidecar in one synchronous
 * call; its KZG part (seconds for six blobs) is taken out of that call and run in the KZG worker, so
 * the event loop only does the cheap rest. Refusals and their order are the library's.
 */
import type { Common } from '@ethereumjs/common'
import { createBlob4844TxFromSerializedNetworkWrapper, type TypedTransaction } from '@ethereumjs/tx'
import { verifySidecar } from './kzg.ts'
import { recordingKzg } from './sidecarCheck.ts'

/** Decodes `raw` (type 3, network form) and verifies its sidecar off the event loop. */
export async function decodeBlobTxOffThread(common: Common, raw: Uint8Array): Promise<TypedTransaction> {
  const recorder = recordingKzg()
  const crypto = common.customCrypto as { kzg?: unknown }
  const loaded = crypto.kzg
  let tx: TypedTransaction | undefined
  let failure: unknown
  // Synchronous: no other code runs while the recorder stands in for the shared KZG.
  crypto.kzg = recorder.kzg
  try {
    tx = createBlob4844TxFromSerializedNetworkWrapper(raw, { common })
  } catch (e) {
    failure = e
  } finally {
    crypto.kzg = loaded
  }
  const check = recorder.check()
  // The library verifies the proofs before its later checks (versioned hashes), so a bad proof wins.
  if (check) {
    const refusal = await verifySidecar(common, check)
    if (refusal !== undefined) throw new Error(refusal)
  }
  if (failure !== undefined || !tx) throw failure
  return tx
}
