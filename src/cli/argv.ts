/**
 * cac parses with mri, which turns every value that looks like a number into a float: an address
 * `0xf39f…` or a gas price of 10^21 wei would silently lose digits. Values of value-taking options
 * are therefore wrapped before cac sees them and unwrapped when a command reads its options.
 */
import { readFileSync } from 'node:fs'
import type { CAC } from 'cac'
import { parseTrustedSetup, type TrustedSetup } from '../chain/kzgTrustedSetup.ts'
import { CliError } from './cliError.ts'

const MARK = '\u0001'

/** Wraps the values of the value options declared on `cli` so that they reach us as strings. */
export function protectOptionValues(cli: CAC, argv: string[]): string[] {
  const valueOptions = new Set<string>()
  const known = new Set<string>(['help', 'version'])
  for (const cmd of [cli.globalCommand, ...cli.commands]) {
    for (const opt of cmd.options) {
      for (const n of opt.names) {
        known.add(kebab(n))
        if (!opt.isBoolean) valueOptions.add(kebab(n))
      }
    }
  }
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (!arg.startsWith('--')) {
      out.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    // cac would read `--no-x` as the negation of `--x` and name unknown options in camelCase.
    if (!known.has(name)) throw new CliError(unknownOptionMessage(name, known, argv))
    if (!valueOptions.has(name)) out.push(arg)
    else if (eq !== -1) out.push(`--${name}=${MARK}${arg.slice(eq + 1)}`)
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out.push(arg, MARK + argv[++i])
    else throw new CliError(`Missing value for option --${name}`)
  }
  return out
}

/** `Unknown option --x`, with the nearest known option when one is close, and where the list is. */
function unknownOptionMessage(name: string, known: Set<string>, argv: string[]): string {
  let best: string | undefined
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1
  for (const candidate of known) {
    const d = editDistance(name, candidate)
    if (d < bestDistance) [best, bestDistance] = [candidate, d]
  }
  const command = argv.find((a) => !a.startsWith('-'))
  const hint = best === undefined ? '' : ` (did you mean --${best}?)`
  return `Unknown option --${name}${hint}; basalt ${command ?? ''}${command ? ' ' : ''}--help lists the options`
}

/** Levenshtein distance, for suggestions between short option names. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    row = next
  }
  return row[b.length]
}

/** A cac option name (`rpcHttpApi`) as it is written on the command line (`rpc-http-api`). */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

/** Reads an option value as the string the user typed (undefined when absent). */
export function optString(options: Record<string, unknown>, key: string): string | undefined {
  const v = options[key]
  if (v === undefined) return undefined
  const last = Array.isArray(v) ? v[v.length - 1] : v
  return String(last).replace(MARK, '')
}

/** Reads a boolean option accepting Besu's `--flag`, `--flag=true|false`. */
export function optBool(options: Record<string, unknown>, key: string, flag: string, fallback: boolean): boolean {
  const v = options[key]
  if (v === undefined) return fallback
  if (v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  throw new CliError(`Invalid value for option --${flag}: '${String(v)}' (expected true or false)`)
}

/** Throws Basalt's one-line refusal of an option's value, naming what it expected. */
export function bad(flag: string, value: string | undefined, expected: string): never {
  throw new CliError(`Invalid value for option --${flag}: '${value ?? ''}' (expected ${expected})`)
}

/** A decimal integer option within `min`..`max`. */
export function intOpt(flag: string, v: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    bad(flag, v, `an integer in ${min}..${max}`)
  return Number(v)
}

/** Besu's `--kzg-trusted-setup <file>`: the setup read and checked now, so a bad file stops the start. */
export function kzgTrustedSetupOpt(file: string | undefined): { setup: TrustedSetup; file: string } | undefined {
  if (file === undefined) return undefined
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new CliError(`Invalid value for option --kzg-trusted-setup: cannot read ${file}: ${(e as Error).message}`)
  }
  try {
    return { setup: parseTrustedSetup(text), file }
  } catch (e) {
    throw new CliError(`Invalid value for option --kzg-trusted-setup: ${file}: ${(e as Error).message}`)
  }
}
