#!/usr/bin/env node
// A `solc` for forge without downloads: answers `--version` and `--standard-json` (input on stdin)
// with the npm solc package (solcjs). forge.toml points `solc` here.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const solc = createRequire(import.meta.url)('solc')
const args = process.argv.slice(2)
if (args.includes('--version')) {
  const v = solc.version().replace('.Emscripten.clang', '')
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${v}.Linux.g++\n`)
} else if (args.includes('--standard-json')) {
  const input = readFileSync(0, 'utf8')
  const findImports = (path) => {
    try {
      return { contents: readFileSync(path, 'utf8') }
    } catch {
      return { error: `File not found: ${path}` }
    }
  }
  process.stdout.write(solc.compile(input, { import: findImports }))
} else {
  process.stderr.write(`unsupported arguments: ${args.join(' ')}\n`)
  process.exit(1)
}
