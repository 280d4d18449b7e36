/**
 * Loaded with `node --import` before the unit tests under Node (make test-node): the text imports
 * (`schema.graphql`) that Bun and Deno do themselves, and the library patches that Bun's test loader
 * applies, need a module hook there, registered before the test files load, as src/cli/main.ts does
 * before it loads the node.
 */
import { LIBRARY_PATCHES } from '../src/evm/libraryPatches.ts'
import { installModuleHooks } from '../src/runtime/moduleHooks.ts'

await installModuleHooks(LIBRARY_PATCHES)
