/**
 * The prestate tracer (geth's): every account and storage slot a transaction touched, with its
 * value before the transaction; in diff mode, `pre` and `post` of what changed. Touches are seen at
 * the opcode that makes them, before it runs, so the values read are still the pre-state.
 */
import type { EVM, EVMResult, InterpreterStep } from '@ethereumjs/evm'
import { Address } from '@ethereumjs/util'
import type { RunTxResult } from '@ethereumjs/vm'
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
}

interface AccountState {
  balance: bigint
  nonce: bigint
  code: Uint8Array
  storage: Map<Hex, Hex>
  isEmpty: boolean
}

type AccountJson = { balance?: Hex; nonce?: number; code?: Hex; storage?: Record<string, Hex> }
export type PrestateResult =
  | Record<string, AccountJson>
  | { pre: Record<string, AccountJson>; post: Record<string, AccountJson> }

const ZERO_WORD: Hex = `0x${'0'.repeat(64)}`
const ADDRESS_AT_TOP = new Set([0x31, 0x3b, 0x3c, 0x3f, 0xff]) // BALANCE, EXTCODESIZE/COPY/HASH, SELFDESTRUCT
const ADDRESS_SECOND = new Set([0xf1, 0xf2, 0xf4, 0xfa]) // CALL, CALLCODE, DELEGATECALL, STATICCALL
const SLOAD = 0x54
const SSTORE = 0x55

function word(n: bigint): Hex {
  return `0x${n.toString(16).padStart(64, '0')}`
}

function addressOf(n: bigint): Address {
  return new Address(bigintToPaddedBytes(n & ((1n << 160n) - 1n), 20))
}

export class PrestateTracer implements TxTracer<PrestateResult> {
  private readonly pre = new Map<string, AccountState>()
  private readonly created = new Set<string>()
  private state?: StateManager
  private evm?: EVM

  constructor(private readonly opts: PrestateTracerOptions = {}) {}

  async start({ vm, tx, block, sender }: TxContext): Promise<void> {
    this.state = vm.stateManager as StateManager
    this.evm = vm.evm as EVM
    await this.lookupAccount(new Address(sender))
    if (tx.to) await this.lookupAccount(tx.to)
    await this.lookupAccount(block.header.coinbase)
    this.evm.events.on('step', this.onStep)
    this.evm.events.on('afterMessage', this.onExit)
  }

  async finish(_ctx: TxContext, result: RunTxResult): Promise<PrestateResult> {
    this.evm?.events.off('step', this.onStep)
    this.evm?.events.off('afterMessage', this.onExit)
    if (result.createdAddress) this.markCreated(result.createdAddress)
    if (!this.opts.diffMode) {
      for (const a of this.created) if (this.pre.get(a)?.isEmpty) this.pre.delete(a)
      return Object.fromEntries([...this.pre].map(([a, s]) => [a, this.toJson(s)]))
    }
    const pre: Record<string, AccountJson> = {}
    const post: Record<string, AccountJson> = {}
    for (const [addr, before] of this.pre) {
      const address = new Address(hexToBytes(addr))
      const account = await this.state!.getAccount(address)
      if (!account) {
        if (!before.isEmpty) pre[addr] = this.toJson(before)
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
        if (now !== ZERO_WORD) after.storage.set(key, now)
      }
      if (!isModified) continue
      if (!before.isEmpty) pre[addr] = this.toJson({ ...before, storage: preSlots })
      post[addr] = this.diffJson(before, after)
    }
    return { pre, post }
  }

  private toJson(s: AccountState): AccountJson {
    const out: AccountJson = { balance: toQuantity(s.balance) }
    if (s.nonce > 0n) out.nonce = Number(s.nonce)
    if (s.code.length > 0 && !this.opts.disableCode) out.code = bytesToHex(s.code)
    if (s.storage.size > 0 && !this.opts.disableStorage) out.storage = Object.fromEntries(s.storage)
    return out
  }

  private diffJson(before: AccountState, after: AccountState): AccountJson {
    const out: AccountJson = {}
    if (after.balance !== before.balance) out.balance = toQuantity(after.balance)
    if (after.nonce !== before.nonce) out.nonce = Number(after.nonce)
    if (!equalBytes(after.code, before.code) && !this.opts.disableCode) out.code = bytesToHex(after.code)
    if (after.storage.size > 0 && !this.opts.disableStorage) out.storage = Object.fromEntries(after.storage)
    return out
  }

  private async lookupAccount(address: Address): Promise<AccountState> {
    const key = address.toString()
    let s = this.pre.get(key)
    if (s) return s
    const account = await this.state!.getAccount(address)
    s = {
      balance: account?.balance ?? 0n,
      nonce: account?.nonce ?? 0n,
      code: account ? await this.state!.getCode(address) : new Uint8Array(0),
      storage: new Map(),
      isEmpty: !account || account.isEmpty(),
    }
    this.pre.set(key, s)
    return s
  }

  private async lookupSlot(address: Address, slot: bigint): Promise<void> {
    const s = await this.lookupAccount(address)
    const key = word(slot)
    if (s.storage.has(key)) return
    s.storage.set(key, word(bytesToBigint(await this.state!.getStorage(address, bigintToPaddedBytes(slot, 32)))))
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
    const op = s.opcode.code
    const st = s.stack
    const n = st.length
    let pending: Promise<unknown> | undefined
    if ((op === SLOAD || op === SSTORE) && n >= 1) pending = this.lookupSlot(s.address, st[n - 1])
    else if (ADDRESS_AT_TOP.has(op) && n >= 1) pending = this.lookupAccount(addressOf(st[n - 1]))
    else if (ADDRESS_SECOND.has(op) && n >= 2) pending = this.lookupAccount(addressOf(st[n - 2]))
    if (pending) pending.then(done, done)
    else done?.()
  }

  private readonly onExit = (r: EVMResult): void => {
    if (r.createdAddress) this.markCreated(r.createdAddress)
  }
}
