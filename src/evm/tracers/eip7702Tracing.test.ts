/**
 * Tracers on an EIP-7702 transaction: account B (an EOA) delegates to the store contract in a
 * type-4 transaction sent by A that also calls B. geth's rules: prestateTracer looks up the
 * authority before the delegation applies (no code then), and delegation targets only at CALL
 * opcodes; callTracer names B (not the target) as `to`, and B runs the target's code in its own
 * storage.
 */

import { createEOACode7702Tx } from '@ethereumjs/tx'
import { eoaCode7702SignAuthorization } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { callerRuntime, STORE_RUNTIME, type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { devAccounts } from '../../chain/devAccounts.ts'
import { bytesToHex, hexToBytes, toQuantity } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { CallTracer, formatCallFrame } from './callTracer.ts'
import { PrestateTracer } from './prestateTracer.ts'
import { createReplayTracer } from './replayTracer.ts'

const [, a, b] = devAccounts()
const A = a.address.toLowerCase()
const B = b.address.toLowerCase()
const SLOT0 = `0x${'0'.repeat(64)}`
let t: TracingChain
let store: string
let hash: Uint8Array

beforeAll(async () => {
  t = await tracingChain()
  store = await t.deploy(STORE_RUNTIME)
  const chainId = t.chain.common.chainId()
  const authorization = eoaCode7702SignAuthorization(
    { chainId: toQuantity(chainId), address: store as `0x${string}`, nonce: '0x0' },
    hexToBytes(b.privateKey),
  )
  const tx = createEOACode7702Tx(
    {
      chainId,
      nonce: 0n,
      to: B as `0x${string}`,
      gasLimit: 200_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
      authorizationList: [authorization],
    },
    { common: t.chain.commonForNextBlock() },
  ).sign(hexToBytes(a.privateKey))
  await t.pool.add(tx)
  t.clock.advance(12_000)
  await t.sealer.sealBlock(false)
  hash = tx.hash()
  if (!(await t.chain.findTransaction(hash))) throw new Error('EIP-7702 transaction not mined')
})
afterAll(() => t.close())

describe('tracers on an EIP-7702 delegation', () => {
  it('callTracer: the call goes to the delegating account, which runs the target code', async () => {
    const top = formatCallFrame(await t.trace(hash, new CallTracer())) as any
    expect(top).toMatchObject({ type: 'CALL', from: A, to: B, input: '0x', output: `0x${'2a'.padStart(64, '0')}` })
    expect(top.calls).toBeUndefined()
  })

  it('prestateTracer: the authority before its delegation, and the delegation target', async () => {
    const pre = (await t.trace(hash, new PrestateTracer())) as any
    expect(pre[B].code).toBeUndefined()
    expect(pre[B].codeHash).toBeUndefined()
    expect(pre[B].storage).toEqual({ [SLOT0]: SLOT0 })
    // geth looks up delegation targets at CALL opcodes only, not for the transaction's own recipient.
    expect(pre[store]).toBeUndefined()
    const { post } = (await t.trace(hash, new PrestateTracer({ diffMode: true }))) as any
    const delegation = `0xef0100${store.slice(2)}`
    expect(post[B]).toEqual({
      code: delegation,
      codeHash: bytesToHex(keccak_256(hexToBytes(delegation))),
      nonce: 1,
      storage: { [SLOT0]: `0x${'2a'.padStart(64, '0')}` },
    })
  })

  it('vmTrace and stateDiff: the delegating account runs the target code, and gains its delegation', async () => {
    const r = (await t.trace(hash, createReplayTracer(['vmTrace', 'stateDiff']))) as any
    // Besu takes each frame's code from the code that runs: the target's, not the designator.
    expect(r.vmTrace.code).toBe(`0x${STORE_RUNTIME}`)
    expect(r.vmTrace.ops.map((o: { pc: number }) => o.pc)).toEqual([0, 2, 4, 5, 7, 8, 10, 11, 13, 15])
    expect(r.stateDiff[B].code).toEqual({ '*': { from: '0x', to: `0xef0100${store.slice(2)}` } })
    expect(r.stateDiff[B].nonce).toEqual({ '*': { from: '0x0', to: '0x1' } })
  })

  it('prestateTracer: a CALL into a delegated account looks up its delegation target', async () => {
    const caller = await t.deploy(callerRuntime(B))
    const callHash = await t.send({ to: caller })
    const pre = (await t.trace(callHash, new PrestateTracer())) as any
    expect(pre[B].code).toBe(`0xef0100${store.slice(2)}`)
    expect(pre[store]).toMatchObject({ code: `0x${STORE_RUNTIME}`, nonce: 1 })
    const top = formatCallFrame(await t.trace(callHash, new CallTracer())) as any
    expect(top.calls[0]).toMatchObject({ type: 'CALL', from: caller, to: B })
  })

  // Besu (Prague) takes the gas for resolving a CALL target's delegation (EIP-2929 warm 100 / cold
  // 2,600 of the delegation address) once the opcode's own cost is paid, and leaves it out of the
  // cost it reports; its tracer records that cost plus the gas the frame still has when the call
  // cannot go on. callerRuntime(B): six pushes and GAS (20 gas), then CALL(B, in 4 bytes, out 32
  // bytes): own cost 2,600 (B cold) + 3 (one word of memory); the store contract is cold: 2,600.
  const callAt = (trace: any) => trace.ops.find((o: { pc: number }) => o.pc === 32)

  it("vmTrace: a CALL into a delegated account costs its own gas and the callee's, not the delegation", async () => {
    const caller = await t.deploy(callerRuntime(B))
    const callHash = await t.send({ to: caller, gasLimit: 100_000n })
    const r = (await t.trace(callHash, createReplayTracer(['vmTrace']))) as any
    // 78,980 before the CALL; the callee gets all but 1/64 of 78,980 - 2,603 - 2,600 = 73,777.
    const calleeGas = 73_777 - Math.floor(73_777 / 64)
    expect(callAt(r.vmTrace).cost).toBe(2_603 + calleeGas)
  })

  it('vmTrace: a top-level CALL that pays its own cost but not the delegation', async () => {
    const caller = await t.deploy(callerRuntime(B))
    // 4,601 gas before the CALL: 2,603 paid, 1,998 left, short of the cold delegation's 2,600.
    const callHash = await t.send({ to: caller, gasLimit: 21_000n + 20n + 4_601n })
    const r = (await t.trace(callHash, createReplayTracer(['vmTrace']))) as any
    // Recorded: 2,600 + 1,998; at the top the cost is the gas before it, used that gas less the record.
    expect(callAt(r.vmTrace)).toMatchObject({ cost: 4_601, ex: { used: 4_601 - (2_600 + 1_998) } })
    // Short of its own cost, as before: nothing taken, its own cost recorded with the gas left.
    const shortHash = await t.send({ to: caller, gasLimit: 21_000n + 20n + 2_602n })
    const short = (await t.trace(shortHash, createReplayTracer(['vmTrace']))) as any
    expect(callAt(short.vmTrace)).toMatchObject({ cost: 2_602, ex: { used: -2_603 } })
  })

  it('vmTrace: a nested CALL that pays its own cost but not the delegation', async () => {
    const caller = await t.deploy(callerRuntime(B))
    // CALL(4,621 gas, caller, no value, no input, no output), STOP: the caller's CALL finds 4,601.
    const wrapper = await t.deploy(`6000600060006000600073${caller.slice(2)}61120df100`)
    const callHash = await t.send({ to: wrapper, gasLimit: 100_000n })
    const r = (await t.trace(callHash, createReplayTracer(['vmTrace']))) as any
    const inner = r.vmTrace.ops.find((o: { sub: unknown }) => o.sub !== null).sub
    expect(callAt(inner)).toMatchObject({ cost: 2_600 + 1_998, ex: null })
  })

  it('prestateTracer: a transaction to an account delegated before it looks up the delegation target', async () => {
    // geth (#32080) looks up the recipient's delegation target at the transaction's start, where the
    // delegation is already in place (the first transaction above set it, so there it was not).
    const callHash = await t.send({ to: B })
    const pre = (await t.trace(callHash, new PrestateTracer())) as Record<string, { code?: string }>
    expect(pre[B].code).toBe(`0xef0100${store.slice(2)}`)
    expect(pre[store]).toMatchObject({ code: `0x${STORE_RUNTIME}`, nonce: 1 })
  })

  it('prestateTracer diff mode: a cleared delegation leaves empty code with the empty-code hash', async () => {
    // B authorizes the zero address (EIP-7702: clears its delegation) at its nonce, 1.
    const authorization = eoaCode7702SignAuthorization(
      { chainId: toQuantity(t.chain.common.chainId()), address: `0x${'0'.repeat(40)}`, nonce: '0x1' },
      hexToBytes(b.privateKey),
    )
    const tx = createEOACode7702Tx(
      {
        chainId: t.chain.common.chainId(),
        nonce: 1n,
        to: B as `0x${string}`,
        gasLimit: 200_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
        authorizationList: [authorization],
      },
      { common: t.chain.commonForNextBlock() },
    ).sign(hexToBytes(a.privateKey))
    await t.pool.add(tx)
    t.clock.advance(12_000)
    await t.sealer.sealBlock(false)
    const { post } = (await t.trace(tx.hash(), new PrestateTracer({ diffMode: true }))) as any
    // keccak256 of no bytes: geth's state gives an existing account without code that hash.
    expect(post[B]).toEqual({
      code: '0x',
      codeHash: '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
      nonce: 2,
    })
  })
})
