/**
 * prestateTracer against geth's rules on hand-assembled contracts: `codeHash` beside code (accounts
 * with code only), keys in geth's order, created contracts absent from the pre-state, an account
 * empty before the transaction absent from diff mode's pre (listed in its post), disableCode /
 * disableStorage.
 */

import { keccak_256 } from '@noble/hashes/sha3.js'
import { deployCode, STORE_RUNTIME, type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { computeContractAddress } from '../../chain/addresses.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { PrestateTracer } from './prestateTracer.ts'

const INIT = bytesToHex(deployCode(STORE_RUNTIME)).slice(2)
/** CREATE(0, mem[4..32]) of the store contract's init code: PUSH32 init, PUSH1 0, MSTORE, PUSH1 28, PUSH1 4, PUSH1 0, CREATE, POP, STOP. */
const FACTORY_RUNTIME = `7f${INIT.padStart(64, '0')}600052601c60046000f05000`
const STORE_CODE_HASH = bytesToHex(keccak_256(hexToBytes(`0x${STORE_RUNTIME}`)))
const SLOT0 = `0x${'0'.repeat(64)}`
const SEVEN = `0x${'7'.padStart(64, '0')}`
const FRESH = '0x00000000000000000000000000000000000f4e54'

let t: TracingChain
let store: string
let storeTx: Uint8Array

beforeAll(async () => {
  t = await tracingChain()
  store = await t.deploy(STORE_RUNTIME)
  storeTx = await t.send({ to: store })
})
afterAll(() => t.close())

const trace = (hash: Uint8Array, opts = {}) => t.trace(hash, new PrestateTracer(opts)) as Promise<any>

describe('prestateTracer', () => {
  it('gives a contract its code hash, in geth key order, and none to accounts without code', async () => {
    const pre = await trace(storeTx)
    expect(Object.keys(pre[store])).toEqual(['balance', 'code', 'codeHash', 'nonce', 'storage'])
    expect(pre[store]).toEqual({
      balance: '0x0',
      code: `0x${STORE_RUNTIME}`,
      codeHash: STORE_CODE_HASH,
      nonce: 1,
      storage: { [SLOT0]: SLOT0 },
    })
    expect(pre[t.sender].codeHash).toBeUndefined()
    expect(Object.keys(pre[t.sender])).toEqual(['balance', 'nonce'])
  })

  it('leaves out code with disableCode (the hash stays) and storage with disableStorage', async () => {
    expect(await trace(storeTx, { disableCode: true, disableStorage: true }).then((p) => p[store])).toEqual({
      balance: '0x0',
      codeHash: STORE_CODE_HASH,
      nonce: 1,
    })
  })

  it('leaves a fresh recipient of value out of diff mode pre, and lists what it became in post', async () => {
    const hash = await t.send({ to: FRESH, value: 7n })
    const { pre, post } = await trace(hash, { diffMode: true })
    // geth drops accounts empty before the transaction from pre after the diff (diffMode refuses
    // includeEmpty), so only post shows the new balance.
    expect(Object.keys(pre)).not.toContain(FRESH)
    expect(post[FRESH]).toEqual({ balance: '0x7' })
    // Outside diff mode an account empty before is left out, unless includeEmpty (geth's rule).
    expect(Object.keys(await trace(hash))).not.toContain(FRESH)
    expect((await trace(hash, { includeEmpty: true }))[FRESH]).toEqual({ balance: '0x0' })
  })

  it('looks up the address a creation transaction deploys to before it runs: no nonce, and left out as empty', async () => {
    // A constructor that reads slot 0 (PUSH1 0, SLOAD, POP) while its account already has nonce 1
    // (EIP-161), then deploys STORE_RUNTIME from offset 16.
    const len = (STORE_RUNTIME.length / 2).toString(16).padStart(2, '0')
    const hash = await t.send({ data: hexToBytes(`0x60005450${`60${len}601060003960${len}6000f3`}${STORE_RUNTIME}`) })
    const pre = await trace(hash)
    // The sender's nonce before the transaction is the one the new address is derived from.
    const created = bytesToHex(computeContractAddress(hexToBytes(t.sender), BigInt(pre[t.sender].nonce ?? 0)))
    expect(Object.keys(pre)).not.toContain(created)
    expect((await trace(hash, { includeEmpty: true }))[created]).toEqual({
      balance: '0x0',
      storage: { [SLOT0]: SLOT0 },
    })
  })

  it('shows a slot the transaction cleared in diff mode as zero in post, and its old value in pre', async () => {
    // PUSH1 0, CALLDATALOAD, PUSH1 0, SSTORE: slot 0 takes the first word of the calldata.
    const setter = await t.deploy('600035600055')
    await t.send({ to: setter, data: hexToBytes(SEVEN) })
    const clear = await t.send({ to: setter })
    const { pre, post } = await trace(clear, { diffMode: true })
    expect(pre[setter].storage).toEqual({ [SLOT0]: SEVEN })
    expect(post[setter]).toEqual({ storage: { [SLOT0]: SLOT0 } })
  })

  it('keeps a contract created by a contract out of the pre-state, and shows it whole in post', async () => {
    const factory = await t.deploy(FACTORY_RUNTIME)
    const hash = await t.send({ to: factory })
    const created = bytesToHex(computeContractAddress(hexToBytes(factory), 1n))
    const pre = await trace(hash)
    expect(pre[created]).toBeUndefined()
    expect(pre[factory].nonce).toBe(1)
    const diff = await trace(hash, { diffMode: true })
    expect(diff.pre[created]).toBeUndefined()
    expect(diff.post[created]).toEqual({
      code: `0x${STORE_RUNTIME}`,
      codeHash: STORE_CODE_HASH,
      nonce: 1,
    })
    expect(diff.post[factory]).toEqual({ nonce: 2 })
  })

  it('leaves out an account an opcode would have read had it not run out of gas paying for it', async () => {
    const probed = '0x00000000000000000000000000000000000b0b0b'
    // PUSH20 probed, BALANCE, STOP: 3 gas, then 2,600 for the cold account.
    const prober = await t.deploy(`73${probed.slice(2)}3100`)
    const starved = await t.send({ to: prober, gasLimit: 21_000n + 3n + 2_599n })
    expect(Object.keys(await trace(starved, { includeEmpty: true }))).not.toContain(probed)
    const fed = await t.send({ to: prober, gasLimit: 21_000n + 3n + 2_600n })
    expect((await trace(fed, { includeEmpty: true }))[probed]).toEqual({ balance: '0x0' })
    expect(await trace(fed).then((p) => p[probed])).toBeUndefined()
  })

  it("lists accounts and slots in ascending order and diff mode's post before pre, as geth's encoding does", async () => {
    // PUSH1 1, PUSH1 2, SSTORE; PUSH1 1, PUSH1 1, SSTORE; STOP: slot 2 written before slot 1.
    const writer = await t.deploy('600160025560016001550000')
    const hash = await t.send({ to: writer })
    const pre = await trace(hash)
    const addresses = Object.keys(pre)
    // The sender, the callee and the coinbase (the zero address) are read in that order.
    expect(addresses).toContain('0x0000000000000000000000000000000000000000')
    expect(addresses).toEqual([...addresses].sort())
    expect(Object.keys(pre[writer].storage)).toEqual([`0x${'1'.padStart(64, '0')}`, `0x${'2'.padStart(64, '0')}`])
    const diff = await trace(hash, { diffMode: true })
    expect(Object.keys(diff)).toEqual(['post', 'pre'])
    expect(Object.keys(diff.post)).toEqual(Object.keys(diff.post).sort())
    expect(Object.keys(diff.post[writer].storage)).toEqual([`0x${'1'.padStart(64, '0')}`, `0x${'2'.padStart(64, '0')}`])
  })
})
