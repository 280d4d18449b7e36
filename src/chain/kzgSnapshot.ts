/**
 * KZG's slow part moved off the event loop. kzg-wasm computes its tables from the trusted setup
 * inside one synchronous WebAssembly call (`load_trusted_setup_wasm`) that takes 15 s or more;
 * everything it computes lives in the module's linear memory. So a worker thread runs the real
 * load and hands back a copy of that memory, and the main thread instantiates the module afresh,
 * skips the load and writes the copied memory in: a KZG of its own in about 70 ms, whose calls stay
 * synchronous as the transaction and EVM libraries need them.
 */
import { loadKzgEmbedded } from './kzgEmbedded.ts'
import type { TrustedSetup } from './kzgTrustedSetup.ts'

type LoadKzg = () => Promise<unknown>
const WASM_PAGE_BYTES = 65_536
type Instantiate = typeof WebAssembly.instantiate
interface Instance {
  exports: Record<string, unknown> & { memory: WebAssembly.Memory }
}

/** Runs kzg-wasm's loadKZG (of `setup`, else the mainnet setup) with `wrap` applied to the instance it creates. */
async function loadWithInstance(wrap: (instance: Instance) => Instance, setup?: TrustedSetup): Promise<unknown> {
  const { loadKZG } = await import('kzg-wasm')
  const original = WebAssembly.instantiate
  const patched = async (...args: Parameters<Instantiate>) => {
    const result = (await (original as (...a: unknown[]) => Promise<unknown>)(...args)) as
      | { module: WebAssembly.Module; instance: Instance }
      | Instance
    if ('instance' in result) return { module: result.module, instance: wrap(result.instance) }
    return wrap(result)
  }
  WebAssembly.instantiate = patched as unknown as Instantiate
  try {
    const load: LoadKzg = () => loadKZG(0, setup)
    return await load().catch(() => loadKzgEmbedded(load))
  } finally {
    WebAssembly.instantiate = original
  }
}

/**
 * Loads KZG the slow way, of `setup` (else the mainnet setup); returns it and a copy of the module's
 * memory afterwards (for a worker).
 */
export async function loadKzgMemory(setup?: TrustedSetup): Promise<{ kzg: unknown; memory: Uint8Array }> {
  let memory: WebAssembly.Memory | undefined
  const kzg = await loadWithInstance((instance) => {
    memory = instance.exports.memory
    return instance
  }, setup)
  if (!memory) throw new Error('kzg-wasm created no WebAssembly instance')
  return { kzg, memory: new Uint8Array(memory.buffer).slice() }
}

/** A KZG whose trusted setup comes from `snapshot`, a memory copy made by `loadKzgMemory`. */
export async function restoreKzg(snapshot: Uint8Array): Promise<unknown> {
  return loadWithInstance((instance) => {
    const memory = instance.exports.memory
    // Grown before kzg-wasm makes its views of the memory, so they cover the whole snapshot.
    const missing = snapshot.byteLength - memory.buffer.byteLength
    if (missing > 0) memory.grow(Math.ceil(missing / WASM_PAGE_BYTES))
    const restore = () => {
      new Uint8Array(memory.buffer).set(snapshot)
      return 0
    }
    return { exports: { ...instance.exports, load_trusted_setup_wasm: restore } }
  })
}
