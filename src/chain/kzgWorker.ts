/**
 * Worker thread holding a KZG of its own. Told to load, it loads the trusted setup (seconds of
 * WebAssembly) and posts the module's memory back (see kzgSnapshot.ts); told to restore, it restores
 * a memory copy it is given. It then verifies blob sidecars (sidecarCheck.ts), one at a time, so that
 * seconds of proof checking never run on the event loop.
 */

import { loadKzgMemory, restoreKzg } from './kzgSnapshot.ts'
import { runSidecarCheck, type SidecarCheck } from './sidecarCheck.ts'

export type ToKzgWorker =
  | { type: 'load' }
  | { type: 'restore'; memory: Uint8Array }
  | { type: 'check'; id: number; check: SidecarCheck }
export type FromKzgWorker =
  | { type: 'loaded'; memory?: Uint8Array }
  | { type: 'failed'; error: string }
  | { type: 'checked'; id: number; refusal?: string }

declare const self: {
  postMessage(message: FromKzgWorker, transfer?: ArrayBuffer[]): void
  onmessage: ((event: MessageEvent<ToKzgWorker>) => void) | null
}

let kzg: unknown

async function setUp(message: ToKzgWorker): Promise<void> {
  try {
    if (message.type === 'restore') {
      kzg = await restoreKzg(message.memory)
      self.postMessage({ type: 'loaded' })
      return
    }
    const loaded = await loadKzgMemory()
    kzg = loaded.kzg
    self.postMessage({ type: 'loaded', memory: loaded.memory }, [loaded.memory.buffer as ArrayBuffer])
  } catch (e) {
    self.postMessage({ type: 'failed', error: e instanceof Error ? e.message : String(e) })
  }
}

self.onmessage = (event) => {
  const message = event.data
  if (message.type !== 'check') void setUp(message)
  else self.postMessage({ type: 'checked', id: message.id, refusal: runSidecarCheck(kzg, message.check) })
}
