/**
 * eth_estimateGas and eth_createAccessList over the call service. The estimate is Besu's: run once
 * at the cap, try the gas used, then binary-search between it and an upper bound that leaves room
 * for the 63/64 rule and the call stipend. The access list is geth's fixed point: run with the
 * list found so far until it stops changing, and report the gas of that last run.
 */
import type { Block } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'
import { minBigInt } from '../primitives/bigintMath.ts'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import { CallError } from './callError.ts'
import {
  type AccessListEntry,
  type CallChain,
  type CallOptions,
  type CallRequest,
  type CallResult,
  CallSession,
} from './callService.ts'
import { ZERO_ADDRESS } from './callTransaction.ts'

/** Either the gas estimate or the failing run at the cap (revert or halt). */
export type EstimateOutcome = { gas: bigint; failure?: undefined } | { gas?: undefined; failure: CallResult }

const CALL_STIPEND = 2300n
const MAX_SEARCH_STEPS = 64
const MAX_ACCESS_LIST_ROUNDS = 10

async function isEnough(session: CallSession, req: CallRequest, gasLimit: bigint): Promise<boolean> {
  try {
    return (await session.run(req, { gasLimit, isLeanAllowed: true })).exceptionError === undefined
  } catch (e) {
    if (e instanceof CallError) return false
    throw e
  }
}

/** The least gas `req` succeeds with at `block` (within the cap); throws CallError when it is invalid. */
export async function estimateGas(
  chain: CallChain,
  block: Block,
  req: CallRequest,
  opts: CallOptions,
): Promise<EstimateOutcome> {
  // The balance is checked as for eth_call: once the request names a price, unless `strict` says.
  const session = await CallSession.open(chain, block, req, opts)
  // Besu's AbstractEstimateGas replaces the request's gas with the block gas limit (then the RPC
  // gas cap): a `gas` too small for the call does not fail the estimate.
  const limit = session.gasLimitFor({ ...req, gas: undefined })
  const cap = opts.isBalanceChecked === false ? limit : await affordableGas(session, req, limit)
  const first = await session.run(req, { gasLimit: cap, isLeanAllowed: true })
  if (first.exceptionError !== undefined) return { failure: first }
  let lo = first.gasUsed
  if (lo >= cap || (await isEnough(session, req, lo))) return { gas: minBigInt(lo, cap) }
  let hi = ((first.gasUsedBeforeRefund + CALL_STIPEND) * 64n) / 63n
  if (hi >= cap || !(await isEnough(session, req, hi))) hi = cap
  for (let i = 0; i < MAX_SEARCH_STEPS && lo + 1n < hi; i++) {
    const mid = (lo + hi) / 2n
    if (await isEnough(session, req, mid)) hi = mid
    else lo = mid
  }
  return { gas: hi }
}

/** The intrinsic gas of the cheapest transaction (Besu's minimum transaction cost). */
const MIN_TX_GAS = 21000n

/**
 * Besu's checks of the sender's balance before an estimate (`AbstractEstimateGas`, whose `strict`
 * defaults to true): without a price, the value must not exceed the balance; with one (the highest
 * it names, `maxFeePerGas` before `gasPrice`), the estimate is bounded by the gas the balance pays
 * at that price after the value, and an empty balance or a bound below a transaction's minimum
 * cost is refused. Both refusals are Besu's -32004 `Upfront cost exceeds account balance`. A value
 * above a priced sender's balance leaves the bound alone (Besu's unsigned subtraction wraps
 * around), and the run is then refused with the same error. Not called for `strict: false`
 * (`isBalanceChecked: false`), which checks nothing.
 */
async function affordableGas(session: CallSession, req: CallRequest, cap: bigint): Promise<bigint> {
  const balanceOf = async (address: Uint8Array) => (await session.state.getAccount(new Address(address)))?.balance ?? 0n
  const value = req.value ?? 0n
  const price = session.isBalanceChecked ? (req.maxFeePerGas ?? req.gasPrice ?? 0n) : 0n
  if (price === 0n) {
    if (value > 0n && value > (await balanceOf(req.from ?? ZERO_ADDRESS))) throw upfrontCost()
    return cap
  }
  if (req.from === undefined) return cap
  const balance = await balanceOf(req.from)
  if (balance !== 0n && balance < value) return cap
  const paid = balance === 0n ? 0n : (balance - value) / price
  if (paid < MIN_TX_GAS) throw upfrontCost()
  return minBigInt(cap, paid)
}

function upfrontCost(): CallError {
  return new CallError('insufficientFunds', 'upfront cost exceeds account balance')
}

export interface AccessListOutcome {
  accessList: AccessListEntry[]
  /** The run with that access list. */
  result: CallResult
}

function sameList(a: AccessListEntry[], b: AccessListEntry[]): boolean {
  const key = (l: AccessListEntry[]) =>
    l
      .map((e) => `${bytesToHex(e.address)}:${e.storageKeys.map(bytesToHex).sort().join(',')}`)
      .sort()
      .join(';')
  return a.length === b.length && key(a) === key(b)
}

/** The addresses and slots `req` touches, and its gas when they are declared up front. */
export async function createAccessList(
  chain: CallChain,
  block: Block,
  req: CallRequest,
  opts: CallOptions,
): Promise<AccessListOutcome> {
  const session = await CallSession.open(chain, block, req, {
    ...opts,
    isBalanceChecked: opts.isBalanceChecked ?? false,
  })
  let list = req.accessList ?? []
  let result: CallResult | undefined
  for (let i = 0; i < MAX_ACCESS_LIST_ROUNDS; i++) {
    // An empty list the request did not name is not declared: the call keeps its own type, so a
    // block before Berlin (no access-list transactions) still answers, as Besu's, which re-runs
    // with a list only when the traced one differs from the request's.
    const declared = list.length === 0 && req.accessList === undefined ? req : { ...req, accessList: list }
    result = await session.run(declared, { isAccessListReported: true })
    const found = result.accessList ?? []
    if (sameList(found, list)) break
    list = found
  }
  return { accessList: list.map((e) => ({ address: e.address, storageKeys: dedupe(e.storageKeys) })), result: result! }
}

function dedupe(keys: Uint8Array[]): Uint8Array[] {
  return keys.filter((k, i) => keys.findIndex((o) => equalBytes(o, k)) === i)
}
