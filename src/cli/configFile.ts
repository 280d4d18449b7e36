/**
 * The sources of `basalt run`'s options besides the command line, as Besu reads them: environment
 * variables (`BASALT_RPC_HTTP_PORT`, or Besu's `BESU_RPC_HTTP_PORT`) and a TOML configuration file
 * (`--config-file FILE`, or `BASALT_CONFIG_FILE` / `BESU_CONFIG_FILE`). Each key of the file is a
 * `run` option's name without its `--` (`rpc-http-api=["ETH","NET"]`, `rpc-http-port=8545`,
 * `rpc-http-enabled=true`); a key that names no option is refused (`Unknown option in TOML
 * configuration file: KEY`). The command line wins, then the environment, then the file, then
 * Besu's `--profile` (ENTERPRISE / PRIVATE, DEV). Their values become command-line arguments before
 * the command line is parsed, so they pass the same checks.
 */
import { readFileSync } from 'node:fs'
import type { CAC } from 'cac'
import { parseToml, TomlError, type TomlValue } from '../primitives/toml.ts'
import { kebab } from './argv.ts'
import { CliError } from './cliError.ts'

/** The option names (kebab-case) of `run`, and which of them are flags. */
export interface RunOptionNames {
  known: Set<string>
  flags: Set<string>
}

/**
 * The option names of `run`, which the environment and a config file may set (not the global
 * `--help` and `--version`: a `BESU_VERSION` in a container's environment must not stop the node).
 */
export function runOptionNames(cli: CAC): RunOptionNames {
  const names: RunOptionNames = { known: new Set(), flags: new Set() }
  const run = cli.commands.find((c) => c.name === 'run')
  for (const opt of run?.options ?? []) {
    for (const n of opt.names) {
      const name = kebab(n)
      names.known.add(name)
      if (opt.isBoolean) names.flags.add(name)
    }
  }
  return names
}

/** `rpc-http-api` → `RPC_HTTP_API`, the name's part of its environment variables. */
function envName(option: string): string {
  return option.toUpperCase().replaceAll('-', '_')
}

/**
 * `argv` (the arguments after the executable) with the `run` options that the environment and
 * `--config-file`'s file give added after the command line's, as Besu takes them: the command line
 * wins, then `BASALT_<OPTION>` or Besu's `BESU_<OPTION>` (`BESU_RPC_HTTP_API=ETH,NET`), then the
 * file. Environment variables that name no option are ignored, as Besu ignores them. Other
 * commands' arguments are returned unchanged.
 */
export function expandOptionSources(
  argv: string[],
  names: RunOptionNames,
  env: Record<string, string | undefined> = process.env,
): string[] {
  if (argv.find((a) => !a.startsWith('-')) !== 'run') return argv
  const given = new Set(argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]))
  const added: string[] = []
  const add = (name: string, text: string) => {
    given.add(name)
    added.push(`--${name}=${text}`)
  }
  for (const name of names.known) {
    if (given.has(name)) continue
    const v = env[`BASALT_${envName(name)}`] ?? env[`BESU_${envName(name)}`]
    if (v !== undefined) add(name, v)
  }
  const file = optionValueOf(argv, 'config-file') ?? env.BASALT_CONFIG_FILE ?? env.BESU_CONFIG_FILE
  if (file !== undefined) addFileOptions(file, names, given, add)
  const all = [...argv, ...added]
  const profile = optionValueOf(all, 'profile')
  if (profile !== undefined)
    for (const [name, text] of profileOptions(profile, all)) if (!given.has(name)) add(name, text)
  return [...argv, ...added]
}

function addFileOptions(
  file: string,
  names: RunOptionNames,
  given: Set<string>,
  add: (name: string, text: string) => void,
): void {
  for (const [name, v] of readConfigFile(file)) {
    if (!names.known.has(name) || name === 'config-file')
      throw new CliError(`Unknown option in TOML configuration file ${file}: ${name}`)
    if (given.has(name)) continue
    if (Array.isArray(v) && v.some((x) => Array.isArray(x)))
      throw new CliError(`Invalid value for option ${name} in ${file}: nested arrays`)
    const text = Array.isArray(v) ? v.join(',') : String(v)
    if (names.flags.has(name) && typeof v !== 'boolean')
      throw new CliError(`Invalid value for option ${name} in ${file}: '${text}' (expected true or false)`)
    add(name, text)
  }
}

/** The value `--NAME` is given in `args` (the first one), if any. */
function optionValueOf(args: string[], name: string): string | undefined {
  const at = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (at === -1) return undefined
  const value = args[at].includes('=') ? args[at].slice(name.length + 3) : args[at + 1]
  // A missing value is the command line's error to report.
  return value === undefined || value === '' || value.startsWith('--') ? undefined : value
}

/**
 * Besu's private-network profile (ENTERPRISE, or PRIVATE), its options that Basalt has. Its other two
 * are left out: `bonsai-limit-trie-logs-enabled=false` (FOREST keeps no trie logs) and
 * `rpc-http-max-active-connections=300` (Basalt's listener cannot count connections; it sets no limit).
 */
const ENTERPRISE: [string, string][] = [
  ['sync-mode', 'FULL'],
  ['data-storage-format', 'FOREST'],
  ['tx-pool', 'SEQUENCED'],
  ['tx-pool-no-local-priority', 'true'],
  ['tx-pool-limit-by-account-percentage', '0.15'],
  ['min-gas-price', '0'],
  ['sync-min-peers', '1'],
  ['remote-connections-limit-enabled', 'false'],
]

/** Besu's `--profile`: option values below every other source; `args` holds the others. */
function profileOptions(profile: string, args: string[]): [string, string][] {
  const name = profile.toUpperCase()
  if (name === 'ENTERPRISE' || name === 'PRIVATE') {
    // A pool kind given elsewhere keeps its own options (Besu does not count a profile's as given).
    const kind = optionValueOf(args, 'tx-pool')?.toUpperCase()
    const isSequenced = kind === undefined || kind === 'SEQUENCED' || kind === 'LEGACY'
    return ENTERPRISE.filter(([option]) => isSequenced || option !== 'tx-pool-limit-by-account-percentage')
  }
  // Besu's DEV profile selects the dev network, Basalt's default.
  if (name === 'DEV') return [['network', 'dev']]
  const why = ['STAKER', 'MINIMALIST_STAKER', 'SELFISH_STAKER', 'PERFORMANCE', 'PERFORMANCE_RPC'].includes(name)
    ? `; Besu's ${name} profile tunes a public-network node`
    : ''
  throw new CliError(`Invalid value for option --profile: '${profile}' (expected ENTERPRISE, PRIVATE or DEV${why})`)
}

function readConfigFile(file: string): Map<string, TomlValue> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    const code = (e as { code?: string }).code
    throw new CliError(
      code === 'ENOENT'
        ? `Unable to read TOML configuration, file not found: ${file}`
        : `Unable to read TOML configuration file ${file}: ${(e as Error).message}`,
    )
  }
  try {
    return parseToml(text)
  } catch (e) {
    if (!(e instanceof TomlError)) throw e
    throw new CliError(`Invalid TOML configuration in ${file}: ${e.message}`)
  }
}
