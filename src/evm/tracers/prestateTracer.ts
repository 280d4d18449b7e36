/**
 * The prestate tracer (geth's): every account and storage slot a transaction touched, with its
 * value before the transaction (accounts that were empty left out unless `includeEmpty`); in diff mode, `pre` and `post` of what changed. Touches are seen at
 * the opcode that makes them, before it runs, so the values read are still the pre-state.
 */
import type { EVM, EVMResult, InterpreterStep } from '@ethereumjs/evm'
import { Address, eoaCode7702RecoverAuthority, generateAddress, generateAddress2 } from '@ethereumjs/util'
import type { RunTxResult } from '@ethereumjs/vm'
import { keccak_256 } from '@noble/hashes/sha3.js'
import {
  bigintToPaddedBytes,
  bytesToBigint,
  bytesToHex,
  equalBytes,
  type Hex,
  hexToBytes,
  toQuantity,
} from '../../primitives/hex.ts'
import type { StateManager } from '../../state/worldState.ts'
import type { TxContext, TxTracer } from './txTracer.ts'

export interface PrestateTracerOptions {
  diffMode?: boolean
  disableCode?: boolean
  disableStorage?: boolean
  /** Keep the accounts that were empty before the transaction (geth leaves them out unless asked). */
  includeEmpty?: boolean
}

interface AccountState {
  balance: bigint
  nonce: bigint
  code: Uint8Array
  storage: Map<Hex, Hex>
  isEmpty: boolean
}

type AccountJson = { balance?: Hex; code?: Hex; codeHash?: Hex; nonce?: number; storage?: Record<string, Hex> }
export type PrestateResult =
  | Record<string, AccountJson>
  | { pre: Record<string, AccountJson>; post: Record<string, AccountJson> }

const ZERO_WORD: Hex = `0x${'0'.repeat(64)}`
const ADDRESS_AT_TOP = new Set([0x31, 0x3b, 0x3c, 0x3f, 0xff]) // BALANCE, EXTCODESIZE/COPY/HASH, SELFDESTRUCT
const ADDRESS_SECOND = new Set([0xf1, 0xf2, 0xf4, 0xfa]) // CALL, CALLCODE, DELEGATECALL, STATICCALL
const SLOAD = 0x54
const SSTORE = 0x55
const CREATE = 0xf0
const CREATE2 = 0xf5
/** EIP-7702: code `0xef0100 ‖ address` delegates an account to `address`. */
const DELEGATION_PREFIX = [0xef, 0x01, 0x00]

function delegationTarget(code: Uint8Array): Address | undefined {
  if (code.length !== 23 || DELEGATION_PREFIX.some((b, i) => code[i] !== b)) return undefined
  return new Address(code.slice(3))
}

function word(n: bigint): Hex {
  return `0x${n.toString(16).padStart(64, '0')}`
}

function createdAddress(creator: Address, nonce: bigint): Address {
  return new Address(generateAddress(creator.bytes, bigintToPaddedBytes(nonce, 32).subarray(32 - byteLength(nonce))))
}

function created2Address(creator: Address, salt: bigint, init: Uint8Array): Address {
  return new Address(generateAddress2(creator.bytes, bigintToPaddedBytes(salt, 32), init))
}

function byteLength(n: bigint): number {
  return n === 0n ? 0 : Math.ceil(n.toString(16).length / 2)
}

/** The authorities of an EIP-7702 transaction's authorizations (unrecoverable ones left out). */
function authorities(tx: TxContext['tx']): Address[] {
  const list = (tx as { authorizationList?: Uint8Array[][] }).authorizationList
  if (!list) return []
  return list.flatMap((item) => {
    try {
      return [eoaCode7702RecoverAuthority(item as never)]
    } catch {
      return []
    }
  })
}

/**
 * An object with its keys in ascending order: geth encodes its address and slot maps so (Go sorts a
 * map's keys), and the keys here are lowercase hex of one length, so text order is numeric order.
 */
function sortedByKey<V>(o: Record<string, V>): Record<string, V> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

function addressOf(n: bigint): Address {
  return new Address(bigintToPaddedBytes(n & ((1n << 160n) - 1n), 20))
}

export class PrestateTracer implements TxTracer<PrestateResult> {
  private readonly pre = new Map<string, AccountState>()
  private readonly created = new Set<string>()
  /**
   * What the current opcode read, kept apart until it is known to have run: geth's tracer skips an
   * opcode that fails (out of gas for its own cost, stack underflow), and the EVM reports the step
   * before charging it. The next step, a child frame's start or a clean exit confirms it.
   */
  private readonly staged = new Map<string, AccountState>()
  private stagedSlots: { account: string; key: Hex; value: Hex }[] = []
  private state?: StateManager
  private evm?: EVM

  private readonly opts: PrestateTracerOptions

  constructor(opts: PrestateTracerOptions = {}) {
    this.opts = opts
  }

  async start({ vm, tx, block, sender }: TxContext): Promise<void> {
    this.state = vm.stateManager as StateManager
    this.evm = vm.evm as EVM
    await this.lookupAccount(new Address(sender))
    // A creation: the new address as it was before the transaction (geth looks it up at the start).
    const recipient = await this.lookupAccount(tx.to ?? createdAddress(new Address(sender), tx.nonce))
    // A recipient already delegated (EIP-7702) runs its target's code: geth looks the target up too
    // (go-ethereum #32080). A delegation the transaction's own authorizations set is not there yet.
    const target = tx.to ? delegationTarget(recipient.code) : undefined
    if (target) await this.lookupAccount(target)
    await this.lookupAccount(block.header.coinbase)
    // EIP-7702: the authorities, before their delegations are applied.
    for (const authority of authorities(tx)) await this.lookupAccount(authority)
    this.evm.events.on('step', this.onStep)
    this.evm.events.on('beforeMessage', this.onEnter)
    this.evm.events.on('afterMessage', this.onExit)
  }

  async finish(_ctx: TxContext, result: RunTxResult): Promise<PrestateResult> {
    this.evm?.events.off('step', this.onStep)
    this.evm?.events.off('beforeMessage', this.onEnter)
    this.evm?.events.off('afterMessage', this.onExit)
    this.commitStaged()
    if (result.createdAddress) this.markCreated(result.createdAddress)
    if (!this.opts.diffMode) {
      // geth: an account empty before the transaction (no balance, nonce or code), created here or
      // only touched, is left out unless `includeEmpty`, which keeps every one.
      if (!this.opts.includeEmpty) for (const [a, s] of this.pre) if (s.isEmpty) this.pre.delete(a)
      return sortedByKey(Object.fromEntries([...this.pre].map(([a, s]) => [a, this.toJson(s)])))
    }
    const pre: Record<string, AccountJson> = {}
    const post: Record<string, AccountJson> = {}
    for (const [addr, before] of this.pre) {
      const address = new Address(hexToBytes(addr))
      const account = await this.state!.getAccount(address)
      // geth: `pre` leaves out an account empty before the transaction (a creation's address, or any
      // other unless `includeEmpty`); `post` still lists what it became.
      const isLeftOut = before.isEmpty && (this.created.has(addr) || !this.opts.includeEmpty)
      if (!account) {
        if (!isLeftOut) pre[addr] = this.toJson(before)
        continue
      }
      const after: AccountState = {
        balance: account.balance,
        nonce: account.nonce,
        code: new Uint8Array(0),
        storage: new Map(),
        isEmpty: false,
      }
      after.code = await this.state!.getCode(address)
      let isModified =
        after.balance !== before.balance || after.nonce !== before.nonce || !equalBytes(after.code, before.code)
      const preSlots = new Map<Hex, Hex>()
      for (const [key, value] of before.storage) {
        const now = word(bytesToBigint(await this.state!.getStorage(address, hexToBytes(key))))
        if (now === value) continue
        isModified = true
        if (value !== ZERO_WORD) preSlots.set(key, value)
        // A changed slot is in post even when cleared: geth lists it there as zero.
        after.storage.set(key, now)
      }
      if (!isModified) continue
      if (!isLeftOut) pre[addr] = this.toJson({ ...before, storage: preSlots })
      post[addr] = this.diffJson(before, after)
    }
    // geth's order: its result struct lists post first.
    return { post: sortedByKey(post), pre: sortedByKey(pre) }
  }

  /** geth's account JSON: balance, code, codeHash (accounts with code only), nonce (when not 0), storage. */
  private toJson(s: AccountState): AccountJson {
    const out: AccountJson = { balance: toQuantity(s.balance) }
    if (s.code.length > 0 && !this.opts.disableCode) out.code = bytesToHex(s.code)
    if (s.code.length > 0) out.codeHash = bytesToHex(keccak_256(s.code))
    if (s.nonce > 0n) out.nonce = Number(s.nonce)
    if (s.storage.size > 0 && !this.opts.disableStorage) out.storage = sortedByKey(Object.fromEntries(s.storage))
    return out
  }

  /** What changed, in the same key order; a code change shows the new code hash too. */
  private diffJson(before: AccountState, after: AccountState): AccountJson {
    const out: AccountJson = {}
    if (after.balance !== before.balance) out.balance = toQuantity(after.balance)
    const isCodeChanged = !equalBytes(after.code, before.code)
    if (isCodeChanged && !this.opts.disableCode) out.code = bytesToHex(after.code)
    // Code removed (an EIP-7702 delegation cleared): the hash of empty code, as geth's state reports it.
    if (isCodeChanged) out.codeHash = bytesToHex(keccak_256(after.code))
    if (after.nonce !== before.nonce) out.nonce = Number(after.nonce)
    if (after.storage.size > 0 && !this.opts.disableStorage)
      out.storage = sortedByKey(Object.fromEntries(after.storage))
    return out
  }

  private async lookupAccount(address: Address, isStaged = false): Promise<AccountState> {
    const key = address.toString()
    let s = this.pre.get(key) ?? this.staged.get(key)
    if (s) return s
    const account = await this.state!.getAccount(address)
    s = {
      balance: account?.balance ?? 0n,
      nonce: account?.nonce ?? 0n,
      code: account ? await this.state!.getCode(address) : new Uint8Array(0),
      storage: new Map(),
      isEmpty: !account || account.isEmpty(),
    }
    ;(isStaged ? this.staged : this.pre).set(key, s)
    return s
  }

  private async lookupSlot(address: Address, slot: bigint): Promise<void> {
    const account = address.toString()
    const s = await this.lookupAccount(address, true)
    const key = word(slot)
    if (s.storage.has(key) || this.stagedSlots.some((x) => x.account === account && x.key === key)) return
    const value = word(bytesToBigint(await this.state!.getStorage(address, bigintToPaddedBytes(slot, 32))))
    this.stagedSlots.push({ account, key, value })
  }

  /** A called account, and the account it delegates to (EIP-7702), as geth looks both up. */
  private async lookupCallee(address: Address): Promise<void> {
    const callee = await this.lookupAccount(address, true)
    const target = delegationTarget(callee.code)
    if (target) await this.lookupAccount(target, true)
  }

  /** The staged reads become part of the pre-state: their opcode ran. */
  private commitStaged(): void {
    for (const [key, s] of this.staged) if (!this.pre.has(key)) this.pre.set(key, s)
    for (const { account, key, value } of this.stagedSlots) {
      const s = this.pre.get(account)
      if (s && !s.storage.has(key)) s.storage.set(key, value)
    }
    this.staged.clear()
    this.stagedSlots = []
  }

  private markCreated(address: Address): void {
    const key = address.toString()
    this.created.add(key)
    if (!this.pre.has(key)) {
      this.pre.set(key, { balance: 0n, nonce: 0n, code: new Uint8Array(0), storage: new Map(), isEmpty: true })
    }
  }

  // Two parameters: the EVM waits for `done` before running the opcode.
  private readonly onStep = (s: InterpreterStep, done?: () => void): void => {
    this.commitStaged()
    const op = s.opcode.code
    const st = s.stack
    const n = st.length
    let pending: Promise<unknown> | undefined
    if ((op === SLOAD || op === SSTORE) && n >= 1) pending = this.lookupSlot(s.address, st[n - 1])
    else if (ADDRESS_AT_TOP.has(op) && n >= 1) pending = this.lookupAccount(addressOf(st[n - 1]), true)
    else if (ADDRESS_SECOND.has(op) && n >= 2) pending = this.lookupCallee(addressOf(st[n - 2]))
    else if (op === CREATE && n >= 3) pending = this.lookupAccount(createdAddress(s.address, s.account.nonce), true)
    else if (op === CREATE2 && n >= 4) {
      const init = s.memory.slice(Number(st[n - 2]), Number(st[n - 2] + st[n - 3]))
      pending = this.lookupAccount(created2Address(s.address, st[n - 4], init), true)
    }
    if (pending) pending.then(done, done)
    else done?.()
  }

  private readonly onEnter = (): void => this.commitStaged()

  /** A frame that failed on the opcode that read something: that opcode never ran. */
  private readonly onExit = (r: EVMResult): void => {
    if (r.execResult.exceptionError && r.execResult.exceptionError.error !== 'revert') {
      this.staged.clear()
      this.stagedSlots = []
    } else this.commitStaged()
    if (r.createdAddress) this.markCreated(r.createdAddress)
  }
}
