/**
 * Text imports (`import x from './schema.graphql' with { type: 'text' }`) under Node, which has
 * none: a module hook serves such a file as a module whose default export is its text. Bun's
 * bundler embeds those files in the executable, and Deno imports them as they are.
 */
import { readFileSync } from 'node:fs'
import { runtimeName } from './runtime.ts'

const TEXT_EXTENSIONS = ['.graphql']

/** Under Node, lets the modules loaded from now on import the text files above; elsewhere nothing. */
export async function installTextImports(): Promise<void> {
  if (runtimeName() !== 'node') return
  const { registerHooks } = (await import('node:module')) as unknown as { registerHooks: RegisterHooks }
  registerHooks({
    load(url, context, nextLoad) {
      if (!TEXT_EXTENSIONS.some((ext) => url.endsWith(ext))) return nextLoad(url, context)
      const text = readFileSync(new URL(url), 'utf8')
      return { format: 'module', source: `export default ${JSON.stringify(text)}`, shortCircuit: true }
    },
  })
}

type LoadResult = { format: string; source: string; shortCircuit?: boolean }
type RegisterHooks = (hooks: {
  load(
    url: string,
    context: { importAttributes?: Record<string, string> },
    nextLoad: (url: string, context: unknown) => LoadResult,
  ): LoadResult
}) => void
