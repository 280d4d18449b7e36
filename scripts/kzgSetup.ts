/**
 * Writes `dist/kzg-setup.bin` (or the file given): the memory of kzg-wasm's module once it has loaded
 * the mainnet trusted setup, without its long runs of zeros (src/chain/kzgPrebuilt.ts). The load is deterministic (the same
 * bytes every time), so the file depends only on kzg-wasm's version; it takes 15 s or more.
 *
 * Usage: `bun scripts/kzgSetup.ts [outfile]` (the Makefile's `build` target runs it when the file is missing).
 */
import { renameSync, writeFileSync } from 'node:fs'
import { encodeKzgMemory } from '../src/chain/kzgPrebuilt.ts'
import { loadKzgMemory } from '../src/chain/kzgSnapshot.ts'

const outfile = process.argv[2] ?? 'dist/kzg-setup.bin'
const startedMs = Date.now()
const { memory } = await loadKzgMemory()
const partial = `${outfile}.partial`
writeFileSync(partial, encodeKzgMemory(memory))
renameSync(partial, outfile)
console.log(`${outfile}: the KZG trusted setup loaded in ${Date.now() - startedMs} ms`)
