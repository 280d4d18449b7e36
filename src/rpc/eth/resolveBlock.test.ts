/**
 * Blocks that do not exist, as Besu's state methods answer them (AbstractBlockParameterOrBlockHashMethod):
 * a number past the head and an unknown hash are -32000 `Block not found`.
 */
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { ethCall } from './callMethods.ts'
import { getBalance, getCode } from './stateMethods.ts'

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

async function failure(run: () => Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await run()
  } catch (e) {
    const err = e as { code: number; message: string }
    return { code: err.code, message: err.message }
  }
  throw new Error('no error')
}

describe('requireBlock', () => {
  const NOT_FOUND = { code: -32000, message: 'Block not found' }

  it('answers a block number past the head with -32000 Block not found', async () => {
    const past = `0x${(t.chain.head.header.number + 1n).toString(16)}`
    expect(await failure(() => call(ctx, getBalance, [t.sender, past]))).toEqual(NOT_FOUND)
    expect(await failure(() => call(ctx, getCode, [t.sender, '0x666']))).toEqual(NOT_FOUND)
    expect(await failure(() => call(ctx, ethCall, [{ to: t.sender }, past]))).toEqual(NOT_FOUND)
  })

  it('answers an unknown hash, with or without requireCanonical, with -32000 Block not found', async () => {
    const hash = `0x${'ab'.repeat(32)}`
    expect(await failure(() => call(ctx, getBalance, [t.sender, hash]))).toEqual(NOT_FOUND)
    const canonical = { blockHash: hash, requireCanonical: true }
    expect(await failure(() => call(ctx, getBalance, [t.sender, canonical]))).toEqual(NOT_FOUND)
  })

  it('still reads the head by number and by hash', async () => {
    const head = t.chain.head
    const byNumber = await call(ctx, getBalance, [t.sender, `0x${head.header.number.toString(16)}`])
    expect(await call(ctx, getBalance, [t.sender, bytesToHex(head.hash())])).toBe(byNumber)
  })
})
