/**
 * Runs geth's tracer test fixtures (go-ethereum `eth/tracers/internal/tracetest/testdata/`) through
 * Basalt's own tracers, in process, and compares each result with the fixture's. The fixtures are
 * geth's files and are not kept here: point the runner at a directory laid out as geth's
 * (`call_tracer/`, `call_tracer_withLog/`, `call_tracer_flat/`, `prestate_tracer/`,
 * `prestate_tracer_with_diff_mode/`, each holding `*.json`), or at one of those directories.
 *
 * Each fixture: the state from `genesis.alloc`, the fork of `genesis.config` at the `context`'s block
 * number and time, a header from `context` (number, timestamp, difficulty, gasLimit, miner,
 * baseFeePerGas), the signed transaction `input` run with the tracer the directory names and the
 * fixture's `tracerConfig`. The comparison is geth's own test's:
 * - callTracer: the expected result decoded into geth's call frame shape (fields it does not know,
 *   such as `blockNumber`, dropped; empty `output`, `error`, `calls`, `logs` left out) and encoded
 *   again in its field order, against Basalt's JSON text as is;
 * - flatCallTracer: both sides decoded into geth's flat trace shape, where a zero value, zero gas,
 *   zero address or empty bytes is the same as an absent one, and `blockHash`, `blockNumber`,
 *   `transactionHash`, `transactionPosition` are not compared;
 * - prestateTracer: the expected result with its object keys sorted (Go's map encoding), against
 *   Basalt's JSON text as is.
 * A fixture whose fork the EVM library lacks is skipped with the reason. Fixtures written before two
 * later rules of geth's tracers are compared with the rule applied, and the line says so: a prestate
 * result without `codeHash` (`codeHash added`), a call tree whose top frame's `gas` is the gas left
 * after intrinsic gas rather than the transaction's gas limit (`top gas as the gas limit`; in a
 * flat trace, whose top `gasUsed` was then its message's, both the gas limit and the transaction's
 * gas used), flat create actions without `creationMethod` (`creationMethod not compared`), DELEGATECALL
 * frames without `value` (`DELEGATECALL value as its frame's`), logs without `position` (`log position
 * not compared`). A diff-mode `post` written under `disableCode` gets its `codeHash` from the code the
 * account holds after the transaction. `call_tracer_legacy` fixtures (geth's legacy JavaScript tracer)
 * are compared as geth's test compares them: both sides through the call-frame struct.
 *
 * Run: node_modules/.bin/bun bench/tracerFixtures.ts <dir> [-v]   (-v prints both sides of a mismatch)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { createBlock } from '@ethereumjs/block'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { createTxFromRLP } from '@ethereumjs/tx'
import { Address, createAccount } from '@ethereumjs/util'
import { runTx } from '@ethereumjs/vm'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { createChainCommon, genesisState, normalizeGenesis } from '../src/chain/genesis.ts'
import { ensureKzgFor } from '../src/chain/kzg.ts'
import { createTracer, type TraceConfig } from '../src/evm/tracers/createTracer.ts'
import type { TxContext } from '../src/evm/tracers/txTracer.ts'
import { createVm } from '../src/evm/vmFactory.ts'
import { bytesToHex, hexToBytes } from '../src/primitives/hex.ts'

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
type Obj = { [k: string]: Json }

/** The tracer each of geth's fixture directories runs. */
const DIRECTORIES: Record<string, string> = {
  call_tracer: 'callTracer',
  call_tracer_withLog: 'callTracer',
  call_tracer_flat: 'flatCallTracer',
  prestate_tracer: 'prestateTracer',
  prestate_tracer_with_diff_mode: 'prestateTracer',
  // geth runs these with its legacy JavaScript tracers, which Basalt does not have: compared with
  // the native tracer of the same output shape, for what the two share.
  call_tracer_legacy: 'callTracer',
  prestate_tracer_legacy: 'prestateTracer',
}

/** A decimal or hex quantity of a fixture as a bigint. */
function quantity(v: Json | undefined): bigint {
  if (v === undefined || v === null || v === '') return 0n
  return BigInt(v as string | number)
}

/** The fork keys of geth's chain config that Basalt's genesis loader reads. */
const GETH_FORK_KEYS = [
  'chainId',
  'homesteadBlock',
  'eip150Block',
  'eip158Block',
  'byzantiumBlock',
  'constantinopleBlock',
  'petersburgBlock',
  'istanbulBlock',
  'muirGlacierBlock',
  'berlinBlock',
  'londonBlock',
  'arrowGlacierBlock',
  'grayGlacierBlock',
  'mergeNetsplitBlock',
  'shanghaiTime',
  'cancunTime',
  'pragueTime',
  'osakaTime',
  'terminalTotalDifficulty',
  'blobSchedule',
]

/**
 * The config as geth decodes it: keys matched without regard to case (Go's JSON decoding), keys geth
 * does not know dropped (another client's, such as Ethereum Classic's), and those the loader does
 * not read (consensus engines, fork hashes, the DAO fork, `eip155Block`) left out.
 */
function gethConfig(config: Obj): Obj {
  const out: Obj = {}
  for (const [k, v] of Object.entries(config)) {
    const key = GETH_FORK_KEYS.find((g) => g.toLowerCase() === k.toLowerCase())
    if (key) out[key] = v
  }
  return out
}

class SkipFixture extends Error {}

/** Cancun's target blob gas (3 blobs), for a genesis whose config has no `blobSchedule`. */
const CANCUN_BLOB_TARGET = 393_216n

function blobTarget(common: ReturnType<typeof createChainCommon>): bigint {
  try {
    return common.param('targetBlobGasPerBlock')
  } catch {
    return CANCUN_BLOB_TARGET
  }
}

/**
 * The block's base fee. A London fixture without `baseFeePerGas` in its context runs in geth's
 * harness with no base fee at all: the sender pays its fee cap per gas and the miner gets the tip,
 * which is what a base fee of fee cap minus tip gives here (a legacy transaction: base fee 0).
 */
function baseFee(ctx: Obj, tx: ReturnType<typeof createTxFromRLP>): bigint {
  if (ctx.baseFeePerGas !== undefined) return quantity(ctx.baseFeePerGas)
  const t = tx as { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }
  return t.maxFeePerGas !== undefined ? t.maxFeePerGas - (t.maxPriorityFeePerGas ?? 0n) : 0n
}

interface FixtureRun {
  have: unknown
  gasLimit: bigint
  gasUsed: bigint
  /** Each account's code after the transaction, for the accounts the fixture's `post` names. */
  postCode: Map<string, string>
}

async function runFixture(tracer: string, fixture: Obj): Promise<FixtureRun> {
  const g = structuredClone(fixture.genesis) as Obj
  const ctxNumber = quantity((fixture.context as Obj).number)
  const fixtureConfig = g.config as Obj
  const eip155 = fixtureConfig.eip155Block
  const eip158 = fixtureConfig.eip158Block
  if (eip155 !== undefined && quantity(eip155) <= ctxNumber && (eip158 === undefined || quantity(eip158) > ctxNumber)) {
    // geth schedules replay-protected signatures apart from the state-clearing rules; the library's
    // hardforks (and Besu's milestones) bring both with Spurious Dragon.
    throw new SkipFixture('EIP-155 signatures before EIP-158 (Spurious Dragon): no such fork in the EVM library')
  }
  g.config = gethConfig(fixtureConfig)
  // The fixture's genesis is a block in the middle of a chain; only its state and config matter here.
  for (const k of ['number', 'hash', 'stateRoot', 'totalDifficulty', 'parentHash', 'gasUsed']) delete g[k]
  const genesis = normalizeGenesis(g)
  let common: ReturnType<typeof createChainCommon>
  try {
    common = createChainCommon(genesis, {})
  } catch (e) {
    throw new SkipFixture(`fork schedule: ${(e as Error).message}`)
  }
  const ctx = fixture.context as Obj
  const number = ctxNumber
  const timestamp = quantity(ctx.timestamp)
  common.setHardforkBy({ blockNumber: number, timestamp })
  const state = new MerkleStateManager({ common })
  for (const [address, [balance, code, storage, nonce]] of Object.entries(genesisState(genesis))) {
    const a = new Address(hexToBytes(address))
    await state.putAccount(a, createAccount({ balance: BigInt(balance), nonce: BigInt(nonce) }))
    if (code !== '0x') await state.putCode(a, hexToBytes(code))
    for (const [slot, value] of storage) await state.putStorage(a, hexToBytes(slot), hexToBytes(value))
  }
  const isPos = common.consensusType() === 'pos'
  const header: Record<string, unknown> = {
    number,
    timestamp,
    gasLimit: quantity(ctx.gasLimit),
    coinbase: ctx.miner as string,
    difficulty: isPos ? 0n : quantity(ctx.difficulty),
  }
  const raw = hexToBytes(fixture.input as string)
  // A blob transaction needs the KZG setup even without its sidecar.
  if (raw[0] === 3) await ensureKzgFor(common)
  const tx = createTxFromRLP(raw, { common })
  if (common.isActivatedEIP(1559)) header.baseFeePerGas = baseFee(ctx, tx)
  if (common.isActivatedEIP(4844)) {
    // geth's harness: the blob base fee of the block after the genesis (its excess and use).
    const excess = quantity(g.excessBlobGas as Json) + quantity(g.blobGasUsed as Json)
    const target = blobTarget(common)
    header.excessBlobGas = excess > target ? excess - target : 0n
  }
  const block = createBlock({ header }, { common, skipConsensusFormatValidation: true })
  const vm = await createVm(common, state as never, { getBlockByNumber: async () => undefined })
  const traceConfig: TraceConfig = { tracer, tracerConfig: (fixture.tracerConfig as Obj | undefined) ?? {} }
  const t = createTracer(traceConfig)
  const txCtx: TxContext = { vm, tx, block, index: 0, sender: tx.getSenderAddress().bytes }
  await t.start(txCtx)
  const result = await runTx(vm, { tx, block, skipBlockGasLimitValidation: true, skipHardForkValidation: true })
  const have = await t.finish(txCtx, result)
  const postCode = new Map<string, string>()
  const post = ((fixture.result as Obj | undefined)?.post ?? {}) as Obj
  for (const addr of Object.keys(post)) {
    postCode.set(addr.toLowerCase(), bytesToHex(await state.getCode(new Address(hexToBytes(addr)))))
  }
  return { have, gasLimit: tx.gasLimit, gasUsed: result.totalGasSpent, postCode }
}

// ---- geth's comparisons ----

const CALL_FIELDS = [
  'from',
  'gas',
  'gasUsed',
  'to',
  'input',
  'output',
  'error',
  'revertReason',
  'calls',
  'logs',
  'value',
  'type',
]

function hexQuantity(v: Json): string {
  return `0x${quantity(v).toString(16)}`
}

function hexBytes(v: Json): string {
  return typeof v === 'string' ? v.toLowerCase() : '0x'
}

/** The expected call frame as geth's test encodes it again (its `callTrace` struct). */
function gethCallFrame(f: Obj): Obj {
  const out: Obj = {}
  for (const k of CALL_FIELDS) {
    const v = f[k]
    if (k === 'from') out.from = hexBytes(v ?? '0x0000000000000000000000000000000000000000')
    else if (k === 'gas' || k === 'gasUsed') out[k] = v === undefined || v === null ? null : hexQuantity(v)
    else if (k === 'input') out.input = hexBytes(v ?? '0x')
    else if (k === 'type') out.type = (v as string | undefined) ?? ''
    else if (v === undefined || v === null || v === '') continue
    else if (k === 'to') out.to = hexBytes(v)
    else if (k === 'output') {
      if (hexBytes(v) !== '0x') out.output = hexBytes(v)
    } else if (k === 'value') out.value = hexQuantity(v)
    else if (k === 'calls') {
      if ((v as Json[]).length > 0) out.calls = (v as Obj[]).map(gethCallFrame)
    } else if (k === 'logs') {
      if ((v as Json[]).length > 0) {
        out.logs = (v as Obj[]).map((l) => ({
          address: hexBytes(l.address),
          topics: ((l.topics as string[] | null) ?? []).map(hexBytes),
          data: hexBytes(l.data ?? '0x'),
          position: hexQuantity(l.position ?? 0),
        }))
      }
    } else out[k] = v
  }
  return out
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
const FLAT_ACTION: [string, 'address' | 'quantity' | 'bytes' | 'text'][] = [
  ['author', 'address'],
  ['rewardType', 'text'],
  ['address', 'address'],
  ['balance', 'quantity'],
  ['callType', 'text'],
  ['creationMethod', 'text'],
  ['from', 'address'],
  ['gas', 'quantity'],
  ['init', 'bytes'],
  ['input', 'bytes'],
  ['refundAddress', 'address'],
  ['to', 'address'],
  ['value', 'quantity'],
]
const FLAT_RESULT: [string, 'address' | 'quantity' | 'bytes'][] = [
  ['address', 'address'],
  ['code', 'bytes'],
  ['gasUsed', 'quantity'],
  ['output', 'bytes'],
]

/** A struct of geth's flat trace after its JSON round trip: zero values dropped, the rest canonical. */
function flatFields(o: Obj | undefined | null, fields: [string, string][]): Obj {
  const out: Obj = {}
  for (const [k, kind] of fields) {
    const v = o?.[k]
    if (v === undefined || v === null || v === '') continue
    const norm =
      kind === 'quantity' ? hexQuantity(v) : kind === 'text' ? (v as string) : hexBytes(v as string).toLowerCase()
    if (norm === '0x0' || norm === '0x' || norm === ZERO_ADDRESS) continue
    out[k] = norm
  }
  return out
}

function gethFlatTrace(t: Obj): Obj {
  return {
    action: flatFields(t.action as Obj, FLAT_ACTION),
    error: (t.error as string | undefined) ?? '',
    result: flatFields(t.result as Obj, FLAT_RESULT),
    subtraces: Number(t.subtraces ?? 0),
    traceAddress: (t.traceAddress as Json[] | null) ?? [],
    type: (t.type as string | undefined) ?? '',
  }
}

/** Go's encoding of a decoded JSON value: object keys sorted. */
function sortedKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortedKeys)
  if (v === null || typeof v !== 'object') return v
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortedKeys(v[k])]),
  )
}

/** An account's code hash as geth's current prestate tracer gives it: accounts with code only. */
function codeHashOf(code: Json | undefined): string | undefined {
  return typeof code === 'string' && code !== '0x' && code !== '' ? bytesToHex(keccak_256(hexToBytes(code))) : undefined
}

/**
 * A prestate fixture written before geth's tracer gave `codeHash` (go-ethereum #32391, August 2025,
 * which lists it beside the code of every account that has code, `disableCode` or not), with it
 * added: in `pre` (or the whole result) from the account's code in `genesis.alloc`, in `post` from
 * the new code shown there. Returns undefined for a fixture that already carries the field.
 */
function withCodeHashes(fixture: Obj, postCode: Map<string, string> = new Map()): Json | undefined {
  const result = fixture.result as Obj
  if (JSON.stringify(result).includes('"codeHash"')) return undefined
  const alloc = (fixture.genesis as Obj).alloc as Obj
  const allocCode = (addr: string) =>
    (Object.entries(alloc).find(([a]) => a.toLowerCase() === addr.toLowerCase())?.[1] as Obj | undefined)?.code
  const addTo = (accounts: Obj, codeOf: (addr: string, acc: Obj) => Json | undefined): Obj =>
    Object.fromEntries(
      Object.entries(accounts).map(([addr, acc]) => {
        const hash = codeHashOf(codeOf(addr, acc as Obj))
        return [addr, hash ? { ...(acc as Obj), codeHash: hash } : acc]
      }),
    )
  if (result.pre !== undefined && result.post !== undefined) {
    // A `post` account lists its code hash where the code changed; under `disableCode` the fixture
    // has no code to hash, so the code the account holds after the transaction stands in.
    const changedCode = (a: string, acc: Obj) => {
      if (acc.code !== undefined || (fixture.tracerConfig as Obj | undefined)?.disableCode !== true) return acc.code
      const after = postCode.get(a.toLowerCase())
      return after !== undefined && after !== allocCode(a) ? after : undefined
    }
    return {
      post: addTo(result.post as Obj, changedCode),
      pre: addTo(result.pre as Obj, (a) => allocCode(a)),
    }
  }
  return addTo(result, (a) => allocCode(a))
}

/**
 * A call-tracer fixture written before geth gave the top call frame the transaction's gas limit as its
 * `gas` (the gas left after intrinsic gas before): the result with that rule applied, or undefined for
 * a fixture whose top frame already has it.
 */
function withTopGasLimit(fixture: Obj, gasLimit: bigint): Obj | undefined {
  const result = fixture.result as Obj
  if (quantity(result.gas) >= gasLimit) return undefined
  return { ...fixture, result: { ...result, gas: `0x${gasLimit.toString(16)}` } }
}

/**
 * A call-tracer fixture written before geth gave a DELEGATECALL frame the value of the frame it runs
 * in (such frames there carry no `value`): the result with that rule applied, or undefined for a
 * fixture that already has it.
 */
function withDelegateValues(result: Obj): Obj | undefined {
  let isChanged = false
  const fill = (f: Obj, parentValue: Json | undefined): Obj => {
    const isBare = f.type === 'DELEGATECALL' && f.value === undefined && parentValue !== undefined
    if (isBare) isChanged = true
    const value = isBare ? parentValue : f.value
    const calls = Array.isArray(f.calls) ? (f.calls as Obj[]).map((c) => fill(c, value)) : f.calls
    const out: Obj = { ...f, calls: calls as Json }
    if (f.calls === undefined) delete out.calls
    if (value !== undefined) out.value = value
    return out
  }
  const filled = fill(result, result.value)
  return isChanged ? filled : undefined
}

/** Whether a call-tracer fixture's logs predate geth's log `position` (none of them carries it). */
function hasPositionlessLogs(result: Json): boolean {
  const text = JSON.stringify(result)
  return text.includes('"logs"') && !text.includes('"position"')
}

/** A call frame (as JSON) with every log's `position` dropped. */
function withoutLogPositions(frame: Obj): Obj {
  const out: Obj = { ...frame }
  if (Array.isArray(frame.logs)) out.logs = (frame.logs as Obj[]).map(({ position: _, ...l }) => l)
  if (Array.isArray(frame.calls)) out.calls = (frame.calls as Obj[]).map(withoutLogPositions)
  return out
}

/**
 * Flat traces without `creationMethod`, for a fixture written before geth's flat create actions
 * carried it (which of CREATE and CREATE2 made a contract is not in such a fixture to add).
 */
function withoutCreationMethod(traces: Obj[]): Obj[] {
  return traces.map((t) => {
    const { creationMethod: _, ...action } = (t.action ?? {}) as Obj
    return { ...t, action }
  })
}

/**
 * A flat fixture written before geth's top trace carried the transaction's gas limit and gas used
 * (it had the gas left after intrinsic gas, and the gas its message used): the result with that
 * rule applied, or undefined for a fixture that already has it.
 */
function withTopFlatGas(fixture: Obj, gasLimit: bigint, gasUsed: bigint): Obj | undefined {
  const [top, ...rest] = fixture.result as Obj[]
  const action = (top?.action ?? {}) as Obj
  if (!top || quantity(action.gas) >= gasLimit) return undefined
  // A failed call's result is empty: no gas used to set.
  const result =
    top.result && !top.error ? { ...(top.result as Obj), gasUsed: `0x${gasUsed.toString(16)}` } : top.result
  return { ...fixture, result: [{ ...top, action: { ...action, gas: `0x${gasLimit.toString(16)}` }, result }, ...rest] }
}

function compare(
  dir: string,
  fixture: Obj,
  have: unknown,
  postCode: Map<string, string>,
): { isEqual: boolean; have: string; want: string } {
  const result = (
    dir.startsWith('prestate') ? (withCodeHashes(fixture, postCode) ?? fixture.result) : fixture.result
  ) as Json
  if (dir === 'call_tracer_flat') {
    const h = JSON.stringify((have as Obj[]).map(gethFlatTrace))
    const w = JSON.stringify((result as Obj[]).map(gethFlatTrace))
    return { isEqual: h === w, have: h, want: w }
  }
  if (dir.startsWith('call_tracer')) {
    const isPositionless = hasPositionlessLogs(result)
    const want = gethCallFrame(withDelegateValues(result as Obj) ?? (result as Obj))
    const h = JSON.stringify(isPositionless ? withoutLogPositions(have as Obj) : have)
    const w = JSON.stringify(isPositionless ? withoutLogPositions(want) : want)
    return { isEqual: h === w, have: h, want: w }
  }
  const h = JSON.stringify(have)
  const w = JSON.stringify(sortedKeys(result))
  return { isEqual: h === w, have: h, want: w }
}

// ---- the run ----

interface Outcome {
  file: string
  status: 'pass' | 'fail' | 'skip' | 'error'
  detail?: string
}

async function runDirectory(path: string, isVerbose: boolean): Promise<Outcome[]> {
  const dir = basename(path)
  const tracer = DIRECTORIES[dir]
  if (!tracer) return []
  const out: Outcome[] = []
  for (const name of readdirSync(path)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const file = `${dir}/${name}`
    const fixture = JSON.parse(readFileSync(join(path, name), 'utf8')) as Obj
    try {
      const { have, gasLimit, gasUsed, postCode } = await runFixture(tracer, fixture)
      const isCallTree = dir.startsWith('call_tracer') && dir !== 'call_tracer_flat'
      const gasRuled = isCallTree
        ? withTopGasLimit(fixture, gasLimit)
        : dir === 'call_tracer_flat'
          ? withTopFlatGas(fixture, gasLimit, gasUsed)
          : undefined
      const isMethodless = dir === 'call_tracer_flat' && !JSON.stringify(fixture.result).includes('"creationMethod"')
      const c = compare(dir, gasRuled ?? fixture, isMethodless ? withoutCreationMethod(have as Obj[]) : have, postCode)
      const notes = [
        dir.startsWith('prestate') && withCodeHashes(fixture) !== undefined ? 'codeHash added' : '',
        gasRuled && isCallTree ? 'top gas as the gas limit' : '',
        gasRuled && !isCallTree ? "top gas and gas used as the transaction's" : '',
        isMethodless && JSON.stringify(have).includes('"creationMethod"') ? 'creationMethod not compared' : '',
        isCallTree && withDelegateValues(fixture.result as Obj) !== undefined
          ? "DELEGATECALL value as its frame's"
          : '',
        isCallTree && hasPositionlessLogs(fixture.result) ? 'log position not compared' : '',
      ].filter((n) => n !== '')
      const added = notes.length > 0 ? ` (${notes.join('; ')})` : ''
      const detail = `${added}${isVerbose && !c.isEqual ? `\nhave ${c.have}\nwant ${c.want}` : ''}`
      out.push({ file, status: c.isEqual ? 'pass' : 'fail', detail })
    } catch (e) {
      const isSkip = e instanceof SkipFixture
      out.push({ file, status: isSkip ? 'skip' : 'error', detail: (e as Error).message.split('\n')[0] })
    }
  }
  return out
}

const args = process.argv.slice(2)
const isVerbose = args.includes('-v')
const root = args.find((a) => a !== '-v')
if (!root) {
  console.error('usage: bun bench/tracerFixtures.ts <fixture directory> [-v]')
  process.exit(2)
}
const dirs = DIRECTORIES[basename(root)]
  ? [root]
  : readdirSync(root)
      .map((d) => join(root, d))
      .filter((d) => statSync(d).isDirectory())
      .sort()
const outcomes: Outcome[] = []
for (const d of dirs) outcomes.push(...(await runDirectory(d, isVerbose)))
for (const o of outcomes) console.log(`${o.status.padEnd(5)} ${o.file}${o.detail ? `  ${o.detail}` : ''}`)
const count = (s: Outcome['status']) => outcomes.filter((o) => o.status === s).length
console.log(`${count('pass')} pass, ${count('fail')} fail, ${count('error')} error, ${count('skip')} skip`)
process.exit(count('fail') + count('error') > 0 ? 1 : 0)
