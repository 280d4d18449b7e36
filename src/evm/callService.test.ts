import { Address } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.ts'
import { openChain } from '../node/node.ts'
import { bytesToBigint, bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../runtime/testing.ts'
import { CallError } from './callError.ts'
import { CallSession, call } from './callService.ts'
import { createAccessList, estimateGas } from './gasEstimator.ts'
import type { StateOverrides } from './stateOverrides.ts'

let chain: Chain
let close: () => void
beforeAll(async () => {
  ;({ chain, close } = await openChain({ dataPath: ':memory:' }))
})
afterAll(() => close())

const CONTRACT = hexToBytes('0x00000000000000000000000000000000c0ffee01')
const EMPTY = hexToBytes('0x00000000000000000000000000000000000e3971')
const FUNDED = hexToBytes('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')
const code = (hex: string): StateOverrides => [[CONTRACT, { code: hexToBytes(hex) }]]
/** Returns 42 as one word. */
const RETURN_42 = '0x602a60005260206000f3'
/** Reverts with 42 as one word. */
const REVERT_42 = '0x602a60005260206000fd'
/** SSTORE(0, 1), then SLOAD(0) and returns it. */
const STORE_AND_LOAD = '0x600160005560005460005260206000f3'
/** Returns NUMBER. */
const RETURN_NUMBER = '0x4360005260206000f3'

const opts = { gasCap: 0n }

describe('call', () => {
  it('returns the output of code set by a state override', async () => {
    const r = await call(chain, chain.head, { to: CONTRACT }, { ...opts, stateOverrides: code(RETURN_42) })
    expect(bytesToBigint(r.returnData)).toBe(42n)
    expect(r.isRevert).toBe(false)
    expect(r.gasUsed).toBeGreaterThan(21000n)
  })

  it('leaves the chain state and the pending trie writes untouched', async () => {
    const root = bytesToHex(chain.head.header.stateRoot)
    // Compared with before the call: a BONSAI data path holds nodes no committed state refers to.
    const pendingBefore = chain.trieDb.pendingCount
    await call(chain, chain.head, { to: CONTRACT }, { ...opts, stateOverrides: code(STORE_AND_LOAD) })
    expect(chain.trieDb.pendingCount).toBe(pendingBefore)
    expect(bytesToHex(chain.head.header.stateRoot)).toBe(root)
    const after = await chain.stateAt(chain.head).getCode(new Address(CONTRACT))
    expect(after.length).toBe(0)
  })

  it('reports a revert with its data', async () => {
    const r = await call(chain, chain.head, { to: CONTRACT }, { ...opts, stateOverrides: code(REVERT_42) })
    expect(r.isRevert).toBe(true)
    expect(bytesToBigint(r.returnData)).toBe(42n)
  })

  it('reports an invalid opcode as a halt, not a revert', async () => {
    const r = await call(chain, chain.head, { to: CONTRACT }, { ...opts, stateOverrides: code('0xfe') })
    expect(r.isRevert).toBe(false)
    expect(r.exceptionError).toBe('invalid opcode')
  })

  it('lets an unpriced call send value the sender does not have', async () => {
    const r = await call(chain, chain.head, { from: EMPTY, to: FUNDED, value: 10n ** 18n }, opts)
    expect(r.exceptionError).toBeUndefined()
  })

  it('checks the balance once a gas price is named', async () => {
    const err = await call(chain, chain.head, { from: EMPTY, to: FUNDED, gasPrice: 10n ** 10n }, opts).catch((e) => e)
    expect(err).toBeInstanceOf(CallError)
    expect((err as CallError).kind).toBe('insufficientFunds')
  })

  it('runs under block overrides', async () => {
    const r = await call(
      chain,
      chain.head,
      { to: CONTRACT },
      { ...opts, stateOverrides: code(RETURN_NUMBER), blockOverrides: { number: 777n } },
    )
    expect(bytesToBigint(r.returnData)).toBe(777n)
  })

  it('simulates a creation when there is no recipient', async () => {
    // Init code returning the one-byte runtime 0x00.
    const r = await call(chain, chain.head, { from: FUNDED, data: hexToBytes('0x60016000f3') }, opts)
    expect(r.createdAddress?.length).toBe(20)
  })
})

describe('call without overrides', () => {
  /** Creation code that returns BALANCE(EMPTY). */
  const READ_BALANCE = hexToBytes(`0x73${bytesToHex(EMPTY).slice(2)}3160005260206000f3`)

  it('runs concurrent calls on one shared VM, each on the untouched state', async () => {
    const runs = Array.from({ length: 6 }, (_, i) =>
      i % 2 === 0
        ? call(chain, chain.head, { from: FUNDED, to: EMPTY, value: 1000n }, opts)
        : call(chain, chain.head, { from: FUNDED, data: READ_BALANCE }, opts),
    )
    const results = await Promise.all(runs)
    for (const [i, r] of results.entries()) {
      expect(r.exceptionError).toBeUndefined()
      if (i % 2 === 1) expect(bytesToBigint(r.returnData)).toBe(0n)
    }
  })

  it('recovers after a call the VM refuses', async () => {
    const poor = hexToBytes('0x00000000000000000000000000000000000b0b01')
    await expect(call(chain, chain.head, { from: poor, to: EMPTY, value: 1n, gasPrice: 1n }, opts)).rejects.toThrow()
    const r = await call(chain, chain.head, { from: FUNDED, data: READ_BALANCE }, opts)
    expect(bytesToBigint(r.returnData)).toBe(0n)
  })
})

describe('CallSession.gasLimitFor', () => {
  it('defaults to the gas cap and clamps larger requests to it', async () => {
    const s = await CallSession.open(chain, chain.head, {}, { gasCap: 1_000_000n })
    expect(s.gasLimitFor({})).toBe(1_000_000n)
    expect(s.gasLimitFor({ gas: 5_000_000n })).toBe(1_000_000n)
    expect(s.gasLimitFor({ gas: 50_000n })).toBe(50_000n)
  })
})

describe('estimateGas', () => {
  it('estimates a plain transfer at 21000', async () => {
    const r = await estimateGas(chain, chain.head, { from: FUNDED, to: EMPTY, value: 1n }, opts)
    expect(r.gas).toBe(21000n)
  })

  it('finds the least gas a storage write succeeds with', async () => {
    const overrides = code(STORE_AND_LOAD)
    const r = await estimateGas(chain, chain.head, { to: CONTRACT }, { ...opts, stateOverrides: overrides })
    const gas = r.gas!
    const at = await call(chain, chain.head, { to: CONTRACT, gas }, { ...opts, stateOverrides: overrides })
    const below = await call(chain, chain.head, { to: CONTRACT, gas: gas - 1n }, { ...opts, stateOverrides: overrides })
    expect(at.exceptionError).toBeUndefined()
    expect(below.exceptionError).toBeDefined()
  })

  it('returns the failing run when the call reverts at the cap', async () => {
    const r = await estimateGas(chain, chain.head, { to: CONTRACT }, { ...opts, stateOverrides: code(REVERT_42) })
    expect(r.failure?.isRevert).toBe(true)
  })
})

describe('createAccessList', () => {
  it('lists the recipient with the slots it touched, and the gas with that list', async () => {
    const r = await createAccessList(
      chain,
      chain.head,
      { from: FUNDED, to: CONTRACT },
      { ...opts, stateOverrides: code(STORE_AND_LOAD) },
    )
    expect(r.accessList.map((e) => bytesToHex(e.address))).toEqual([bytesToHex(CONTRACT)])
    expect(r.accessList[0].storageKeys.map((k) => bytesToBigint(k))).toEqual([0n])
    expect(r.result.exceptionError).toBeUndefined()
  })

  it('leaves the sender and recipient out of a plain transfer', async () => {
    const r = await createAccessList(chain, chain.head, { from: FUNDED, to: EMPTY, value: 1n }, opts)
    expect(r.accessList).toEqual([])
    expect(r.result.gasUsed).toBe(21000n)
  })
})
