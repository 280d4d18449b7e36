/**
 * Module hooks under Node, which loads files as they are where Bun's bundler (and Bun's test loader)
 * transforms them:
 * - text imports (`import x from './schema.graphql' with { type: 'text' }`): Node has none, so a
 *   hook serves such a file as a module whose default export is its text (Bun's bundler embeds it,
 *   Deno imports it as it is);
 * - text patches of library files (the caller's: src/evm/libraryPatches.ts), applied as Node loads
 *   them, so that the node from source runs the libraries as the executable does. Deno has no such
 *   hook and runs them unpatched.
 * The modules loaded before the hooks are installed are not patched: src/cli/main.ts installs them
 * before it loads a command's modules, none of which it imports itself.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runtimeName } from './runtime.ts'

const TEXT_EXTENSIONS = ['.graphql']

/** Text patches of library files: which files, and each one's text as patched. */
export interface FilePatches {
  files: readonly RegExp[]
  apply(path: string, text: string): string
}

/** Under Node, applies the hooks above to the modules loaded from now on; elsewhere nothing. */
export async function installModuleHooks(patches: FilePatches): Promise<void> {
  if (runtimeName() !== 'node') return
  const { registerHooks } = (await import('node:module')) as unknown as { registerHooks: RegisterHooks }
  registerHooks({
    load(url, context, nextLoad) {
      if (TEXT_EXTENSIONS.some((ext) => url.endsWith(ext))) {
        const text = readFileSync(new URL(url), 'utf8')
        return { format: 'module', source: `export default ${JSON.stringify(text)}`, shortCircuit: true }
      }
      const loaded = nextLoad(url, context)
      if (!url.startsWith('file:')) return loaded
      const path = fileURLToPath(url)
      if (!patches.files.some((f) => f.test(path))) return loaded
      const source = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source)
      return { ...loaded, source: patches.apply(path, source) }
    },
  })
}

type LoadResult = { format: string; source: string | Uint8Array; shortCircuit?: boolean }
type RegisterHooks = (hooks: {
  load(
    url: string,
    context: { importAttributes?: Record<string, string> },
    nextLoad: (url: string, context: unknown) => LoadResult,
  ): LoadResult
}) => void
