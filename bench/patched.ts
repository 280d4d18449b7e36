/**
 * Preload for the in-process benchmarks: the libraries as the executable's build patches them
 * (src/evm/libraryPatches.ts), so that a bench measures the code the binary runs.
 * Run: node_modules/.bin/bun --preload ./bench/patched.ts bench/sealLoop.ts …
 */
import { libraryPatches } from '../scripts/libraryPatches.ts'

Bun.plugin(libraryPatches)
