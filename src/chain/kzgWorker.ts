/**
 * Worker thread that loads KZG's trusted setup (seconds of WebAssembly) and posts the module's
 * memory back to the thread that started it (see kzgSnapshot.ts).
 */
import { loadKzgMemory } from './kzgSnapshot.ts'

declare const self: { postMessage(message: unknown, transfer?: ArrayBuffer[]): void }

loadKzgMemory().then(
  (memory) => self.postMessage({ memory }, [memory.buffer as ArrayBuffer]),
  (e: unknown) => self.postMessage({ error: e instanceof Error ? e.message : String(e) }),
)
