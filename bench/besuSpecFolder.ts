/**
 * What the runners of Besu's spec folders share (bench/besuBySpec.ts, bench/besuGraphqlSpecs.ts):
 * finding the spec files of a folder and importing a folder's chain into a fresh data path with
 * `basalt blocks import`, as Besu's harnesses load their test chain before the first request.
 */
import { readdirSync, statSync } from 'node:fs'
import { runBasalt } from '../test/e2e/harness.ts'

/** Every `*.json` under `dir`, depth first, in name order. */
export function specFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = `${dir}/${name}`
    if (statSync(path).isDirectory()) specFiles(path, out)
    else if (name.endsWith('.json')) out.push(path)
  }
  return out
}

/**
 * Imports `blocks` (Besu's JSON block format when the name ends in `.json`, concatenated RLP blocks
 * otherwise, as Besu's `*.blocks` files) on `genesis` into `dataPath` with `extraArgs`; prints the
 * import's output and answers whether it succeeded.
 */
export async function importChain(
  genesis: string,
  blocks: string,
  dataPath: string,
  extraArgs: string[] = [],
): Promise<boolean> {
  const format = blocks.endsWith('.json') ? 'JSON' : 'RLP'
  const files = ['--from', blocks, '--genesis-file', genesis, '--data-path', dataPath]
  const imported = await runBasalt(['blocks', 'import', `--format=${format}`, ...files, ...extraArgs], 120_000)
  console.log(imported.out.trim())
  return imported.code === 0
}
