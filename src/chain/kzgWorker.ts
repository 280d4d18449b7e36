/**
 * Worker thread holding a KZG of its own. Told to load, it loads the trusted setup it is given, or
 * the mainnet one (seconds of WebAssembly), and posts the module's memory back (see kzgSnapshot.ts);
 * told to restore, it restores a memory copy it is given. It then verifies blob sidecars
 * (sidecarCheck.ts) and computes cell proofs, one at a time, so that these seconds of KZG work never
 * run on the event loop.
 */

import { parentThread } from '../runtime/worker.ts'
import { loadKzgMemory, restoreKzg } from './kzgSnapshot.ts'
import type { TrustedSetup } from './kzgTrustedSetup.ts'
import { cellProofsOf, runSidecarCheck, type SidecarCheck } from './sidecarCheck.ts'

/** A question for the worker's KZG: a sidecar to verify, or a blob whose cell proofs to compute. */
export type KzgQuestion = { type: 'check'; check: SidecarCheck } | { type: 'cellProofs'; blob: string }
/** How the worker gets its KZG: loading a setup (the mainnet one without `setup`), or restoring a memory copy. */
export type KzgSetUp = { type: 'load'; setup?: TrustedSetup } | { type: 'restore'; memory: Uint8Array }
export type ToKzgWorker = KzgSetUp | (KzgQuestion & { id: number })
/** The answer to a question: a refusal (or none) for a check, proofs for a blob, or what failed. */
export interface KzgAnswer {
  refusal?: string
  proofs?: string[]
  error?: string
}
export type FromKzgWorker =
  | { type: 'loaded'; memory?: Uint8Array }
  | { type: 'failed'; error: string }
  | ({ type: 'answer'; id: number } & KzgAnswer)

const self = parentThread<ToKzgWorker, FromKzgWorker>()

let kzg: unknown

async function setUp(message: KzgSetUp): Promise<void> {
  try {
    if (message.type === 'restore') {
      kzg = await restoreKzg(message.memory)
      self.postMessage({ type: 'loaded' })
      return
    }
    const loaded = await loadKzgMemory(message.setup)
    kzg = loaded.kzg
    self.postMessage({ type: 'loaded', memory: loaded.memory }, [loaded.memory.buffer as ArrayBuffer])
  } catch (e) {
    self.postMessage({ type: 'failed', error: e instanceof Error ? e.message : String(e) })
  }
}

function answer(question: KzgQuestion): KzgAnswer {
  if (question.type === 'check') return { refusal: runSidecarCheck(kzg, question.check) }
  try {
    return { proofs: cellProofsOf(kzg, question.blob) }
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) }
  }
}

self.onMessage((message) => {
  if (message.type === 'load' || message.type === 'restore') void setUp(message)
  else self.postMessage({ type: 'answer', id: message.id, ...answer(message) })
})
