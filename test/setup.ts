/**
 * Preloaded before every test file (bunfig.toml). Bun ignores a `timeout` key in bunfig.toml, and a
 * default set here reaches only some of the files of a multi-file run, so the make targets also
 * pass `--timeout 60000`; this covers a plain `bun test some.test.ts`. Without either, tests ran
 * under bun's 5 s default: e2e tests that start the compiled binary, or import a chain, failed on a
 * loaded machine while passing on an idle one.
 */
import { afterAll, setDefaultTimeout } from 'bun:test'
import { libraryPatches } from '../scripts/libraryPatches.ts'
import { removeLeftTempDirs } from './e2e/tempDirs.ts'

setDefaultTimeout(60_000)

// The unit tests run the libraries as the executable's build patches them.
Bun.plugin(libraryPatches)

// In a preload, `afterAll` runs once, after the last test file.
afterAll(removeLeftTempDirs)
