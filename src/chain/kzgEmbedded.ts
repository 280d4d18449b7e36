/**
 * KZG inside a `bun build --compile` executable. kzg-wasm reads `../wasm/kzg.wasm` next to its own
 * module, which does not exist in the executable's virtual file system, so there the wasm file is
 * embedded (a `type: 'file'` import) and kzg-wasm's read of it is redirected for the one load.
 */
import { createRequire } from 'node:module'

type LoadKzg = () => Promise<unknown>

/** Loads KZG with `load` (kzg-wasm's loadKZG) reading the wasm binary embedded in the executable. */
export async function loadKzgEmbedded(load: LoadKzg): Promise<unknown> {
  // @ts-expect-error a wasm file, imported for its embedded path (Bun's `type: 'file'`)
  const embedded = await import('../../node_modules/kzg-wasm/dist/wasm/kzg.wasm', { with: { type: 'file' } })
  const wasmPath = (embedded as { default: string }).default
  const fs = createRequire(import.meta.url)('node:fs') as { readFileSync: (...a: unknown[]) => unknown }
  const readFileSync = fs.readFileSync
  const cwd = process.cwd
  // Without process.cwd kzg-wasm skips its own loader and reads the file through require('fs').
  fs.readFileSync = (p: unknown, ...rest: unknown[]) =>
    String(p).endsWith('wasm/kzg.wasm') ? readFileSync(wasmPath) : readFileSync(p, ...rest)
  ;(process as { cwd?: unknown }).cwd = undefined
  try {
    return await load()
  } finally {
    process.cwd = cwd
    fs.readFileSync = readFileSync
  }
}
