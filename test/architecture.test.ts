/**
 * The layer rule of DESIGN.md: imports point down only. Each folder of src/ has a rank; a module may
 * import from its own folder and from folders of lower rank. Tests are exempt (they assemble
 * services from any layer).
 */
import { describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const SRC = new URL('../src', import.meta.url).pathname

const RANK: Record<string, number> = {
  runtime: -1,
  primitives: 0,
  storage: 1,
  state: 2,
  evm: 3,
  consensus: 5.5,
  chain: 4,
  txpool: 5,
  producer: 6,
  jsonrpc: 7,
  p2p: 8,
  rpc: 9,
  engine: 10,
  graphql: 10,
  server: 11,
  node: 12,
  cli: 13,
}

/** The .ts files under `dir`: its unit tests (`isTest`) or the rest. */
function tsFiles(dir: string, isTest = false): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return tsFiles(path, isTest)
    return path.endsWith('.ts') && path.endsWith('.test.ts') === isTest ? [path] : []
  })
}

function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0]
}

function internalImports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1])
  return specs.map((s) => resolve(dirname(file), s)).filter((p) => p.startsWith(SRC))
}

describe('architecture', () => {
  it('gives every folder of src/ a rank', () => {
    const folders = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory())
    expect(folders.filter((f) => RANK[f] === undefined)).toEqual([])
  })

  it('has no import that points up or sideways between layers', () => {
    const violations: string[] = []
    for (const file of tsFiles(SRC)) {
      const from = layerOf(file)
      for (const target of internalImports(file)) {
        const to = layerOf(target)
        if (to !== from && !(RANK[to] < RANK[from]))
          violations.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`)
      }
    }
    expect(violations).toEqual([])
  })

  it('keeps the devp2p library inside the transport and discovery of src/p2p', () => {
    const importers = tsFiles(SRC).filter((f) => readFileSync(f, 'utf8').includes("'@ethereumjs/devp2p'"))
    expect(importers.map((f) => relative(SRC, f)).sort()).toEqual(['p2p/discovery.ts', 'p2p/rlpxTransport.ts'])
  })

  it('runs every unit test under src/ on the runtime-neutral test API (the Deno and Node suites load them too)', () => {
    const onBun = tsFiles(SRC, true).filter((f) => /from\s+'bun(:test)?'/.test(readFileSync(f, 'utf8')))
    expect(onBun.map((f) => relative(SRC, f))).toEqual([])
  })
})
