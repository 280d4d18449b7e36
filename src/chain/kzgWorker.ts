/**
 * Worker thread that loads KZG's trusted setup (seconds of WebAssembly) and posts the module's
 * memory back to the thread that started it (see kzgSnapshot.ts).
 */
import { postToParent } from '../runtime/worker.ts'
import { loadKzgMemory } from './kzgSnapshot.ts'

loadKzgMemory().then(
  (memory) => postToParent({ memory }, [memory.buffer as ArrayBuffer]),
  (e: unknown) => postToParent({ error: e instanceof Error ? e.message : String(e) }),
)
