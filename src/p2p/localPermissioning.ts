/**
 * Besu's local permissioning: an accounts allowlist (only its accounts may send transactions into
 * the pool and blocks this node builds) and a nodes allowlist (only its nodes may be peers), read
 * from a TOML file (`accounts-allowlist=["0x…"]`, `nodes-allowlist=["enode://…"]`, one file or
 * two) and changed at run time by the `perm_*` methods, which write the file back as Besu does:
 * the file keeps the allowlist keys, each rewritten on one line. A change is refused when the file
 * no longer holds what the node last read or wrote (edited by hand since: `perm_reloadPermissionsFromFile`
 * first), and kept in memory only, as Besu keeps it. Spec: Besu's AccountLocalConfigPermissioningController,
 * NodeLocalConfigPermissioningController, AllowlistPersistor, PermissioningConfigurationBuilder.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { parseToml, type TomlValue } from '../primitives/toml.ts'
import { type Enode, formatEnode, parseEnode } from './enode.ts'

/** What a change of an allowlist came to (Besu's AllowlistOperationResult). */
export type AllowlistResult =
  | 'success'
  | 'emptyEntry'
  | 'invalidEntry'
  | 'duplicatedEntry'
  | 'existingEntry'
  | 'absentEntry'
  | 'fixedNode'
  | 'persistFailure'
  | 'fileSync'

type ListKey = 'accounts-allowlist' | 'nodes-allowlist'

/** How one list's entries are checked and compared. */
interface EntryRules {
  /** The entry as kept and listed, or undefined when it is not a valid entry. */
  normalize(entry: string): string | undefined
  /** What two entries are compared by (of a valid entry). */
  identity(entry: string): string
}

const ACCOUNT_RULES: EntryRules = {
  normalize: (a) => (/^0x[0-9a-fA-F]{40}$/.test(a) ? a.toLowerCase() : undefined),
  identity: (a) => a.toLowerCase(),
}

/** Nodes compare by id, host and TCP port (Besu's same listening endpoint), whatever the discovery port. */
const NODE_RULES: EntryRules = {
  normalize: (url) => {
    try {
      return formatEnode(parseEnode(url))
    } catch {
      return undefined
    }
  },
  identity: (url) => {
    const e = parseEnode(url)
    return `${e.id}@${e.host}:${e.port}`
  },
}

/** One allowlist of one file. */
export class Allowlist {
  private entries: string[] = []
  /** The entries' identities, for the checks made per transaction and per connection. */
  private identities = new Set<string>()
  private readonly key: ListKey
  private readonly file: string
  private readonly rules: EntryRules
  /** Entries that cannot be removed (Besu's fixed nodes: the bootnodes). */
  private readonly fixed: ReadonlySet<string>
  private readonly listeners = new Set<() => void>()

  constructor(key: ListKey, file: string, rules: EntryRules, fixed: string[] = []) {
    this.key = key
    this.file = file
    this.rules = rules
    this.fixed = new Set(fixed.filter((f) => rules.normalize(f) !== undefined).map(rules.identity))
    this.set(this.read())
  }

  list(): string[] {
    return [...this.entries]
  }

  has(entry: string): boolean {
    if (this.rules.normalize(entry) === undefined) return false
    return this.identities.has(this.rules.identity(entry))
  }

  /** Called after every change of the list (a change, a reload). */
  onChange(fn: () => void): void {
    this.listeners.add(fn)
  }

  add(entries: unknown[]): AllowlistResult {
    const checked = this.check(entries)
    if (typeof checked === 'string') return checked
    if (checked.some((e) => this.has(e))) return 'existingEntry'
    return this.change([...this.entries, ...checked])
  }

  remove(entries: unknown[]): AllowlistResult {
    const checked = this.check(entries)
    if (typeof checked === 'string') return checked
    const ids = new Set(checked.map(this.rules.identity))
    if ([...ids].some((id) => this.fixed.has(id))) return 'fixedNode'
    if (!checked.every((e) => this.has(e))) return 'absentEntry'
    return this.change(this.entries.filter((e) => !ids.has(this.rules.identity(e))))
  }

  /** Reads the file again; throws with Besu's message (the list stays as it was). */
  reload(): void {
    this.set(this.read())
    for (const fn of this.listeners) fn()
  }

  /** Puts back a list saved with `list()` (the other list's reload failed). */
  restore(entries: string[]): void {
    this.set(entries)
    for (const fn of this.listeners) fn()
  }

  private set(entries: string[]): void {
    this.entries = entries
    this.identities = new Set(entries.map(this.rules.identity))
  }

  /** Besu's input checks, in its order: empty, invalid, duplicated. */
  private check(entries: unknown[]): string[] | AllowlistResult {
    if (entries.length === 0) return 'emptyEntry'
    const normalized = entries.map((e) => (typeof e === 'string' ? this.rules.normalize(e) : undefined))
    if (normalized.some((e) => e === undefined)) return 'invalidEntry'
    const out = normalized as string[]
    if (new Set(out.map(this.rules.identity)).size !== out.length) return 'duplicatedEntry'
    return out
  }

  /**
   * Applies `next` in memory, then writes the file, unless the file no longer holds the list as it
   * was (changed by hand since): then the change stays in memory only ('fileSync', Besu's rule).
   */
  private change(next: string[]): AllowlistResult {
    const before = this.entries
    let file: Map<string, TomlValue>
    try {
      file = readAllowlistFile(this.file)
    } catch {
      return 'persistFailure'
    }
    this.set(next)
    for (const fn of this.listeners) fn()
    const valid = listOf(file, this.key).filter((e) => this.rules.normalize(e) !== undefined)
    const onFile = new Set(valid.map(this.rules.identity))
    if (!before.every((e) => onFile.has(this.rules.identity(e)))) return 'fileSync'
    file.set(this.key, next)
    try {
      writeAllowlistFile(this.file, file)
    } catch {
      this.set(before)
      for (const fn of this.listeners) fn()
      return 'persistFailure'
    }
    return 'success'
  }

  /** The list the file holds; throws Besu's messages for a missing file or key, or a bad entry. */
  private read(): string[] {
    let file: Map<string, TomlValue>
    try {
      file = readAllowlistFile(this.file)
    } catch (e) {
      throw new Error(`Unable to read permissioning TOML config file : ${this.file} ${(e as Error).message}`)
    }
    if (!file.has(this.key)) throw new Error(`${this.key} config option missing in TOML config file ${this.file}`)
    return listOf(file, this.key).map((entry) => {
      const n = this.rules.normalize(entry)
      if (n === undefined)
        throw new Error(this.key === 'accounts-allowlist' ? `Invalid account ${entry}` : `Invalid enode URL ${entry}`)
      return n
    })
  }
}

function listOf(file: Map<string, TomlValue>, key: ListKey): string[] {
  const v = file.get(key)
  return Array.isArray(v) ? v.map(String) : []
}

function readAllowlistFile(path: string): Map<string, TomlValue> {
  return parseToml(readFileSync(path, 'utf8'))
}

/** Writes the allowlist keys back, one line each (Besu drops other keys too), through a renamed temporary file. */
function writeAllowlistFile(path: string, file: Map<string, TomlValue>): void {
  const lines: string[] = []
  for (const key of ['accounts-allowlist', 'nodes-allowlist'] as const) {
    if (!file.has(key)) continue
    lines.push(
      `${key}=[${listOf(file, key)
        .map((e) => `"${e}"`)
        .join(',')}]`,
    )
  }
  const tmp = `${path}.tmp`
  writeFileSync(tmp, `${lines.join('\n')}\n`)
  renameSync(tmp, path)
}

export interface LocalPermissioningOptions {
  /** The accounts allowlist's file, when account permissioning is on. */
  accountsFile?: string
  /** The nodes allowlist's file, when node permissioning is on. */
  nodesFile?: string
  /** The bootnodes: they must be on the nodes allowlist and cannot be removed from it. */
  bootnodes?: string[]
}

/** The accounts and nodes allowlists this node enforces; either may be off. */
export class LocalPermissioning {
  readonly accounts?: Allowlist
  readonly nodes?: Allowlist

  /** Reads the files; throws with Besu's message for an unreadable file, a missing key, a bad entry. */
  constructor(opts: LocalPermissioningOptions) {
    if (opts.nodesFile) this.nodes = new Allowlist('nodes-allowlist', opts.nodesFile, NODE_RULES, opts.bootnodes)
    if (opts.accountsFile) this.accounts = new Allowlist('accounts-allowlist', opts.accountsFile, ACCOUNT_RULES)
  }

  /** Whether `sender` (0x hex) may send transactions; every sender when account permissioning is off. */
  isSenderPermitted(sender: string): boolean {
    return this.accounts === undefined || this.accounts.has(sender)
  }

  /** Whether the node listening at `e` may be a peer; every node when node permissioning is off. */
  isNodePermitted(e: Pick<Enode, 'id' | 'host' | 'port'>): boolean {
    return this.nodes === undefined || this.nodes.has(formatEnode({ ...e, discoveryPort: e.port }))
  }

  /**
   * Throws Besu's start-up refusal when some of `urls` (bootnodes, static nodes) are not on the
   * nodes allowlist.
   */
  checkNodesAllowed(urls: string[]): void {
    const nodes = this.nodes
    if (!nodes) return
    const missing = urls.filter((u) => !nodes.has(u))
    if (missing.length > 0) throw new Error(`Specified node(s) not in nodes-allowlist [${missing.join(', ')}]`)
  }

  /** Reads both files again; throws when one cannot be read, keeping both lists as they were. */
  reload(): void {
    const lists = [this.accounts, this.nodes].filter((l) => l !== undefined)
    const saved = lists.map((l) => l.list())
    try {
      for (const l of lists) l.reload()
    } catch (e) {
      for (const [i, l] of lists.entries()) l.restore(saved[i])
      throw e
    }
  }
}
