/**
 * Loaded with `node --import` before the unit tests under Node (make test-node): the text imports
 * (`schema.graphql`) that Bun and Deno do themselves need a module hook there, registered before the
 * test files load, as src/cli/main.ts does before it loads the node.
 */
import { installTextImports } from '../src/runtime/textImports.ts'

await installTextImports()
