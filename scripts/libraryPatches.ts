/**
 * The library patches (src/evm/libraryPatches.ts) as a Bun plugin, for the executable's build
 * (scripts/build.ts), the unit tests (test/setup.ts) and the in-process benchmarks (bench/patched.ts).
 */
import type { BunPlugin } from 'bun'
import { PATCHED_FILES, patchLibraryFile } from '../src/evm/libraryPatches.ts'

export const libraryPatches: BunPlugin = {
  name: 'basalt-library-patches',
  setup(build) {
    for (const filter of PATCHED_FILES) {
      build.onLoad({ filter }, async (args) => ({
        contents: patchLibraryFile(args.path, await Bun.file(args.path).text()),
        loader: 'js',
      }))
    }
  },
}
