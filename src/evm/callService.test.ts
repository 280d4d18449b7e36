import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Address } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.ts'
import { openChain } from '../node/node.ts'
import { bytesToBigint, bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../runtime/testing.ts'
import { CallError } from './callError.ts'
import { type CallRequest, type CallResult, CallSession, call } from './callService.ts'
import { createAccessList, estimateGas } from './gasEstimator.ts'
import { isLeanCall } from './leanCall.ts'
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

  it("refuses an unpriced call's value the sender does not have, as Besu's simulator", async () => {
    const err = await call(chain, chain.head, { from: EMPTY, to: FUNDED, value: 10n ** 18n }, opts).catch((e) => e)
    expect(err).toBeInstanceOf(CallError)
    expect((err as CallError).kind).toBe('insufficientFunds')
  })

  it('lets an unpriced call run without paying for its gas', async () => {
    const r = await call(chain, chain.head, { from: EMPTY, to: FUNDED, gas: 100_000n }, opts)
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

  it('answers on a chain before Berlin when nothing is to declare: the call keeps its legacy type', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'basalt-access-list-'))
    try {
      const genesisFile = join(dir, 'frontier.json')
      const alloc = { [bytesToHex(FUNDED)]: { balance: '0xde0b6b3a7640000' } }
      writeFileSync(
        genesisFile,
        JSON.stringify({ config: { chainId: 4321, ethash: {} }, gasLimit: '0x2fefd8', difficulty: '0x20000', alloc }),
      )
      const frontier = await openChain({ dataPath: ':memory:', genesisFile })
      try {
        const r = await createAccessList(
          frontier.chain,
          frontier.chain.head,
          { from: FUNDED, to: EMPTY, value: 10n },
          opts,
        )
        expect(r.accessList).toEqual([])
        expect(r.result.gasUsed).toBe(21000n)
        expect(r.result.exceptionError).toBeUndefined()
      } finally {
        frontier.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

const IDENTITY = hexToBytes('0x0000000000000000000000000000000000000004')

/** Code of the test contract, by what it shows of the run. */
const CODES: Record<string, string> = {
  returns42: '0x602a60005260206000f3',
  reverts42: '0x602a60005260206000fd',
  invalidOpcode: '0xfe',
  // SSTORE(0, 1), SLOAD(0), returned.
  storeAndLoad: '0x600160005560005460005260206000f3',
  // SSTORE(0, 0) on a slot set to 1 (a refund), then GAS returned.
  clearsSlot: '0x60006000555a60005260206000f3',
  // The gas left when the code starts.
  gasLeft: '0x5a60005260206000f3',
  // EXTCODEHASH(ORIGIN): whether the sender exists (its nonce was bumped).
  originCodeHash: '0x323f60005260206000f3',
  // BALANCE(ORIGIN) and BALANCE(CALLER) / SELFBALANCE seen during the run.
  originBalance: '0x323160005260206000f3',
  selfBalance: '0x4760005260206000f3',
  // BALANCE(COINBASE), then GAS: the coinbase is warm from Shanghai on.
  coinbaseWarm: '0x4131505a60005260206000f3',
  // LOG1 with topic 42, then STOP.
  logs: '0x602a60006000a100',
  // CALL(gas, 0xdead, value 1) then GAS: a new account's cost.
  callsWithValue: '0x6000600060006000600161dead5af1505a60005260206000f3',
}

/** Loops until out of gas. */
const BURNS_GAS = '0x5b600056'

const overrides = (code: string): StateOverrides => [
  [
    CONTRACT,
    { code: hexToBytes(code), balance: 10n, stateDiff: [[new Uint8Array(32), hexToBytes(`0x${'00'.repeat(31)}01`)]] },
  ],
]

function summary(r: CallResult | Error): unknown {
  if (r instanceof Error) return { error: r.name, message: r.message, kind: (r as { kind?: string }).kind }
  return {
    returnData: bytesToHex(r.returnData),
    gasUsed: r.gasUsed,
    gasUsedBeforeRefund: r.gasUsedBeforeRefund,
    isRevert: r.isRevert,
    exceptionError: r.exceptionError,
    logs: r.logs.map((l) => [bytesToHex(l[0]), l[1].map(bytesToHex), bytesToHex(l[2])]),
  }
}

async function runBoth(code: string, req: CallRequest): Promise<{ lean: unknown[]; full: unknown[]; isLean: boolean }> {
  const session = await CallSession.open(chain, chain.head, req, { gasCap: 0n, stateOverrides: overrides(code) })
  const isLean = isLeanCall(session.vm, session.block, req, session.gasLimitFor(req))
  const lean: unknown[] = []
  const full: unknown[] = []
  // Interleaved, twice each: every run must also leave the session's state as it found it.
  for (let i = 0; i < 2; i++) {
    lean.push(summary(await session.run(req, { isLeanAllowed: true }).catch((e: Error) => e)))
    full.push(summary(await session.run(req).catch((e: Error) => e)))
  }
  return { lean, full, isLean }
}

describe('lean call executor', () => {
  const senders: [string, Uint8Array | undefined][] = [
    ['no sender', undefined],
    ['a funded sender', FUNDED],
    ['an unfunded sender', EMPTY],
  ]
  const bodies: [string, Partial<CallRequest>][] = [
    ['no data', {}],
    ['zero bytes', { data: new Uint8Array(64) }],
    ['much calldata (the EIP-7623 floor)', { data: new Uint8Array(3000).fill(7) }],
    ['value the sender lacks', { value: 5n * 10n ** 30n }],
    ['a small gas limit', { gas: 30_000n }],
    ['a legacy gas price of zero', { gasPrice: 0n }],
  ]
  for (const [name, code] of Object.entries(CODES)) {
    it(`gives runTx's result for ${name}`, async () => {
      for (const [, from] of senders) {
        for (const [, body] of bodies) {
          const { lean, full, isLean } = await runBoth(code, { from, to: CONTRACT, ...body })
          expect(isLean).toBe(true)
          expect(lean).toEqual(full)
        }
      }
    })
  }

  it("gives runTx's result for a run out of gas", async () => {
    for (const [, from] of senders) {
      const { lean, full } = await runBoth(BURNS_GAS, { from, to: CONTRACT, gas: 100_000n })
      expect(lean).toEqual(full)
    }
  })

  it('refuses too little gas as runTx does', async () => {
    for (const gas of [20_999n, 21_000n, 21_063n, 21_064n, 30_000n]) {
      for (const data of [new Uint8Array(0), new Uint8Array(4).fill(1), new Uint8Array(1000).fill(1)]) {
        const { lean, full } = await runBoth(CODES.returns42, { to: CONTRACT, gas, data })
        expect(lean).toEqual(full)
      }
    }
  })

  it("gives runTx's result for a precompile and an account without code", async () => {
    for (const to of [IDENTITY, EMPTY, FUNDED]) {
      const { lean, full, isLean } = await runBoth(CODES.returns42, {
        from: FUNDED,
        to,
        data: new Uint8Array(40).fill(3),
      })
      expect(isLean).toBe(true)
      expect(lean).toEqual(full)
    }
  })

  it('leaves creations, access lists, nonces and priced calls to runTx', async () => {
    const session = await CallSession.open(chain, chain.head, {}, { gasCap: 0n })
    const vm = session.vm
    const gas = 100_000n
    expect(isLeanCall(vm, session.block, { data: new Uint8Array(1) }, gas)).toBe(false)
    expect(isLeanCall(vm, session.block, { to: CONTRACT, accessList: [] }, gas)).toBe(false)
    expect(isLeanCall(vm, session.block, { to: CONTRACT, nonce: 3n }, gas)).toBe(false)
    expect(isLeanCall(vm, session.block, { to: CONTRACT, type: 1 }, gas)).toBe(false)
    expect(isLeanCall(vm, session.block, { to: CONTRACT, gas: 1n << 25n }, 1n << 25n)).toBe(false)
    expect(isLeanCall(vm, chain.head, { to: CONTRACT }, gas)).toBe((chain.head.header.baseFeePerGas ?? 0n) === 0n)
  })
})
