/**
 * Compiles a Solidity source of this folder with npm `solc` (at test time; nothing is checked in
 * compiled). Results are cached per run, keyed by source path.
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import solc from 'solc'

export interface CompiledContract {
  abi: unknown[]
  bytecode: `0x${string}`
}

const cache = new Map<string, Record<string, CompiledContract>>()

function compileFile(sourcePath: string): Record<string, CompiledContract> {
  const name = basename(sourcePath)
  const input = {
    language: 'Solidity',
    sources: { [name]: { content: readFileSync(sourcePath, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0)
    throw new Error(
      `solc failed on ${sourcePath}:\n${errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n')}`,
    )
  const out: Record<string, CompiledContract> = {}
  for (const [contract, c] of Object.entries(
    output.contracts[name] as Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>,
  )) {
    out[contract] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }
  }
  return out
}

/** The ABI and creation bytecode of `contractName` in the Solidity file at `sourcePath`. */
export function compileContract(sourcePath: string, contractName: string): CompiledContract {
  let compiled = cache.get(sourcePath)
  if (!compiled) {
    compiled = compileFile(sourcePath)
    cache.set(sourcePath, compiled)
  }
  const c = compiled[contractName]
  if (!c) throw new Error(`no contract ${contractName} in ${sourcePath}`)
  return c
}
