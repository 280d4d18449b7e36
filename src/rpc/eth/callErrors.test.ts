/**
 * The halt reasons of eth_call and eth_estimateGas in Besu's words: -32000 "Transaction processing
 * could not be completed due to an exception: <reason>", the reason being the description of Besu's
 * ExceptionalHaltReason (an invalid opcode names the opcode). Each case is init code run as a call.
 */
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { callFailure } from '../../evm/callError.ts'
import type { RpcError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { callServiceError, failedCallError, failureText } from './callErrors.ts'
import { ethCall, ethEstimateGas } from './callMethods.ts'
import { simulateV1 } from './simulateMethods.ts'
import { getBalance, getCode } from './stateMethods.ts'

const PREFIX = 'Transaction processing could not be completed due to an exception: '

let t: TracingChain
let ctx: RpcContext

beforeAll(async () => {
  t = await tracingChain()
  ctx = rpcContext(t)
})
afterAll(() => {
  ctx.filters.stop()
  t.close()
})

/** The error eth_call (or another method) ends in for `data` run as init code. */
async function failure(data: string, method = ethCall): Promise<{ code: number; message: string; data?: unknown }> {
  // A small gas limit keeps the endless loop short.
  const req = { from: t.sender, data, gas: '0x20000' }
  const params = method === ethCall ? [req, 'latest'] : [req]
  try {
    await call(ctx, method, params)
  } catch (e) {
    const err = e as { code: number; message: string; data?: unknown }
    return { code: err.code, message: err.message, data: err.data }
  }
  throw new Error(`${data} did not fail`)
}

describe("halt reasons as Besu's", () => {
  const cases: [string, string, string][] = [
    ['a jump to a byte that is no JUMPDEST', '0x600356', 'Bad jump destination'],
    ['a JUMPI into push data', '0x6001600657605b', 'Bad jump destination'],
    ['the designated INVALID opcode', '0xfe', 'Invalid opcode: 0xfe'],
    ['an undefined opcode', '0x0c', 'Invalid opcode: 0x0c'],
    ['an opcode without enough stack items', '0x01', 'Stack underflow'],
    ['RETURNDATACOPY past the return data', '0x6001600060003e', 'Out of bounds'],
    ['an endless loop', '0x5b600056', 'Out of gas'],
  ]
  for (const [what, data, reason] of cases) {
    it(`eth_call: ${what} is "${reason}"`, async () => {
      expect(await failure(data)).toEqual({ code: -32000, message: PREFIX + reason, data: undefined })
    })
  }

  it("answers a value the sender cannot pay with Besu's -32004, never the EVM library's text", () => {
    const r = { exceptionError: 'insufficient balance', isRevert: false } as Parameters<typeof failedCallError>[0]
    const e = failedCallError(r)
    expect([e.code, e.message]).toEqual([-32004, 'Upfront cost exceeds account balance'])
    expect(failureText(r)).toBe('insufficient balance for transfer')
  })

  it('stack overflow is "Out of stack"', async () => {
    // 1025 pushes: PUSH0 needs Shanghai, which the dev chain has.
    expect((await failure(`0x${'5f'.repeat(1025)}`)).message).toBe(`${PREFIX}Out of stack`)
  })

  it('eth_estimateGas halts with the same reason', async () => {
    expect(await failure('0x600356', ethEstimateGas)).toMatchObject({
      code: -32000,
      message: `${PREFIX}Bad jump destination`,
    })
    expect((await failure('0xfe', ethEstimateGas)).message).toBe(`${PREFIX}Invalid opcode: 0xfe`)
  })

  it('a revert stays code 3 with its data', async () => {
    expect(await failure('0x60006000fd')).toEqual({ code: 3, message: 'Execution reverted', data: '0x' })
  })

  it("eth_simulateV1 reports a halted call in geth's words, as the execution-apis cases do", async () => {
    const calls = [
      { from: t.sender, data: '0x600356', gas: '0x20000' },
      { from: t.sender, data: '0x0c', gas: '0x20000' },
    ]
    const [block] = await call(ctx, simulateV1, [{ blockStateCalls: [{ calls }] }, 'latest'])
    expect(block.calls.map((c: { error: unknown }) => c.error)).toEqual([
      { code: -32015, message: 'invalid jump destination' },
      { code: -32015, message: 'invalid opcode: opcode 0xc not defined' },
    ])
  })
})

describe("eth_estimateGas and the sender's balance, as Besu's AbstractEstimateGas", () => {
  const UPFRONT = { code: -32004, message: 'Upfront cost exceeds account balance' }
  const POOR = '0x00000000000000000000000000000000000b0b01'
  const TO = '0x00000000000000000000000000000000000e3972'
  /** 100 gwei: above the dev chain's base fee. */
  const PRICE = 100_000_000_000n
  const hex = (n: bigint) => `0x${n.toString(16)}`

  async function outcome(method: typeof ethCall, req: Record<string, unknown>, overrides?: unknown) {
    try {
      const params = overrides === undefined ? [req, 'latest'] : [req, 'latest', overrides]
      return await call(ctx, method, params)
    } catch (e) {
      const err = e as { code: number; message: string }
      return { code: err.code, message: err.message }
    }
  }

  it('refuses a value above the balance with -32004 once a price is set, as eth_call does', async () => {
    const balance = BigInt(await call(ctx, getBalance, [t.sender, 'latest']))
    const req = { from: t.sender, to: TO, value: hex(balance + 1n), gasPrice: hex(PRICE) }
    // Besu's validator's words after the message: the gas limit at the price plus the value.
    const cost = 21000n * PRICE + balance + 1n
    expect(await outcome(ethCall, { ...req, gas: hex(21000n) })).toEqual({
      code: -32004,
      message: `${UPFRONT.message} (transaction up-front cost ${hex(cost)} exceeds transaction sender account balance ${hex(balance)} for sender ${t.sender.toLowerCase()})`,
    })
    const estimated = (await outcome(ethEstimateGas, req)) as { code: number; message: string }
    expect([estimated.code, estimated.message.startsWith(`${UPFRONT.message} (transaction up-front cost 0x`)]).toEqual([
      -32004,
      true,
    ])
    // Without a price too, and with `strict: false`: the gas is then free, the value is not (Besu's
    // simulator refuses a value above the balance whatever the flags); a value within the balance
    // estimates as usual.
    const { gasPrice: _, ...unpriced } = req
    expect(await outcome(ethEstimateGas, unpriced)).toEqual(UPFRONT)
    const lax = (await outcome(ethEstimateGas, { ...unpriced, strict: false })) as { code: number; message: string }
    expect([lax.code, lax.message.startsWith(UPFRONT.message)]).toEqual([-32004, true])
    expect(await outcome(ethEstimateGas, { ...unpriced, value: hex(balance) })).toBe('0x5208')
  })

  it('refuses a value above the balance in eth_call without a price, the cost being the value', async () => {
    const req = { from: POOR, to: TO, value: '0x000002' }
    expect(await outcome(ethCall, req, { [POOR]: { balance: '0x000001' } })).toEqual({
      code: -32004,
      message: `${UPFRONT.message} (transaction up-front cost 0x2 exceeds transaction sender account balance 0x1 for sender ${POOR})`,
    })
    expect(await outcome(ethCall, req, { [POOR]: { balance: '0x2' } })).toBe('0x')
  })

  it('bounds the estimate by what the balance pays at the price, and refuses an empty balance', async () => {
    // Exactly a transfer's gas at the price plus the value: the estimate fits (the gas cap alone would not).
    const value = 5n
    const rich = { [POOR]: { balance: hex(21000n * PRICE + value) } }
    const req = { from: POOR, to: TO, value: hex(value), gasPrice: hex(PRICE) }
    expect(await outcome(ethEstimateGas, req, rich)).toBe('0x5208')
    const short = { [POOR]: { balance: hex(20999n * PRICE + value) } }
    expect(await outcome(ethEstimateGas, req, short)).toEqual(UPFRONT)
    expect(await outcome(ethEstimateGas, { from: POOR, to: TO, gasPrice: hex(PRICE) })).toEqual(UPFRONT)
  })
})

describe("transactions a call cannot be, in Besu's errors", () => {
  const HASH = '0x0100000051c8833cfbaf272e62da1285b183b0405357f62b052a4894ffcdaa2d'
  const TO = '0x00000000000000000000000000000000000e3972'

  async function outcome(req: Record<string, unknown>) {
    try {
      return await call(ctx, ethCall, [{ from: t.sender, ...req }, 'latest'])
    } catch (e) {
      const err = e as { code: number; message: string }
      return { code: err.code, message: err.message }
    }
  }

  it('more blobs than a block holds: -32000 with both amounts of blob gas', async () => {
    const hashes = Array.from({ length: 64 }, () => HASH)
    const r = (await outcome({ to: TO, blobVersionedHashes: hashes, maxFeePerBlobGas: '0x0' })) as {
      code: number
      message: string
    }
    expect(r.code).toBe(-32000)
    expect(r.message).toMatch(/^total blob gas 8388608 exceeds max blob gas per block \d+$/)
  })

  it('a blob transaction without a recipient: -32602 "Invalid transaction type"', async () => {
    expect(await outcome({ blobVersionedHashes: [HASH], maxFeePerBlobGas: '0x3b9aca00' })).toEqual({
      code: -32602,
      message: 'Invalid transaction type',
    })
  })

  it("a type the block's fork does not have: -32602, never the EVM library's text", () => {
    const e = callServiceError(callFailure(new Error('EIP-1559 not enabled on Common'))) as RpcError
    expect({ code: e.code, message: e.message }).toEqual({ code: -32602, message: 'Invalid transaction type' })
  })
})

describe("a call's nonce, as Besu's simulator checks it", () => {
  const TO = '0x00000000000000000000000000000000000e3972'

  async function outcome(method: typeof ethCall, req: Record<string, unknown>) {
    const overrides = { [t.sender]: { nonce: '0x5' } }
    try {
      return await call(ctx, method, [{ from: t.sender, to: TO, ...req }, 'latest', overrides])
    } catch (e) {
      const err = e as { code: number; message: string }
      return { code: err.code, message: err.message }
    }
  }

  it("refuses a nonce below the sender's with -32001 naming both nonces and the sender", async () => {
    const expected = {
      code: -32001,
      message: `Nonce too low (transaction nonce 2 below sender account nonce 5 for sender ${t.sender.toLowerCase()})`,
    }
    expect(await outcome(ethCall, { nonce: '0x2' })).toEqual(expected)
    expect(await outcome(ethEstimateGas, { nonce: '0x2' })).toEqual(expected)
  })

  it("takes the sender's own nonce and a future one", async () => {
    expect(await outcome(ethCall, { nonce: '0x5' })).toBe('0x')
    expect(await outcome(ethEstimateGas, { nonce: '0x9' })).toBe('0x5208')
  })
})

describe("eth_estimateGas and the request's gas, as Besu's AbstractEstimateGas", () => {
  it('estimates with the block gas limit whatever gas the request names', async () => {
    const req = { from: t.sender, to: '0x00000000000000000000000000000000000e3972' }
    expect(await call(ctx, ethEstimateGas, [{ ...req, gas: '0x1' }])).toBe('0x5208')
    // eth_call keeps the request's gas: too little for the transaction is Besu's -32003.
    await expect(call(ctx, ethCall, [{ ...req, gas: '0x1' }, 'latest'])).rejects.toMatchObject({ code: -32003 })
  })
})

async function blockFailure(run: () => Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await run()
  } catch (e) {
    const err = e as { code: number; message: string }
    return { code: err.code, message: err.message }
  }
  throw new Error('no error')
}

describe("blocks that do not exist, as Besu's AbstractBlockParameterOrBlockHashMethod", () => {
  const NOT_FOUND = { code: -32000, message: 'Block not found' }

  it('answers a block number past the head with -32000 Block not found', async () => {
    const past = `0x${(t.chain.head.header.number + 1n).toString(16)}`
    expect(await blockFailure(() => call(ctx, getBalance, [t.sender, past]))).toEqual(NOT_FOUND)
    expect(await blockFailure(() => call(ctx, getCode, [t.sender, '0x666']))).toEqual(NOT_FOUND)
    expect(await blockFailure(() => call(ctx, ethCall, [{ to: t.sender }, past]))).toEqual(NOT_FOUND)
  })

  it('answers an unknown hash, with or without requireCanonical, with -32000 Block not found', async () => {
    const hash = `0x${'ab'.repeat(32)}`
    expect(await blockFailure(() => call(ctx, getBalance, [t.sender, hash]))).toEqual(NOT_FOUND)
    const canonical = { blockHash: hash, requireCanonical: true }
    expect(await blockFailure(() => call(ctx, getBalance, [t.sender, canonical]))).toEqual(NOT_FOUND)
  })

  it('still reads the head by number and by hash', async () => {
    const head = t.chain.head
    const byNumber = await call(ctx, getBalance, [t.sender, `0x${head.header.number.toString(16)}`])
    expect(await call(ctx, getBalance, [t.sender, bytesToHex(head.hash())])).toBe(byNumber)
  })
})
