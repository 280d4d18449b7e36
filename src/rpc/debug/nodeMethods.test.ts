import { RLP } from '@ethereumjs/rlp'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { STORE_RUNTIME, type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { devAccounts } from '../../chain/devAccounts.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { batchSendRawTransaction, debugMetrics, replayBlock, resyncWorldstate, setHead } from './nodeMethods.ts'

let t: TracingChain
let ctx: RpcContext
const RECIPIENT = '0x000000000000000000000000000000000000beef'

beforeAll(async () => {
  t = await tracingChain()
  ctx = rpcContext(t)
  await t.deploy(STORE_RUNTIME)
  for (let i = 0; i < 3; i++) await t.send({ to: RECIPIENT, value: 100n })
})
afterAll(() => {
  ctx.filters.stop()
  t.close()
})

const balanceOf = async (address: string) =>
  (await t.chain.stateAt(t.chain.head).getAccount(new Address(hexToBytes(address))))?.balance ?? 0n

function signed(nonce: bigint, key = devAccounts()[1].privateKey) {
  return createFeeMarket1559Tx(
    {
      chainId: t.chain.common.chainId(),
      nonce,
      to: RECIPIENT,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    },
    { common: t.chain.commonForNextBlock() },
  ).sign(hexToBytes(key))
}

async function seal() {
  t.clock.advance(12_000)
  return t.sealer.sealBlock(false)
}

describe('debug_setHead', () => {
  it('moves the head and its state back; later blocks stay stored; pool and sealer follow the new head', async () => {
    const top = t.chain.head
    expect(top.header.number).toBe(4n)
    expect(await balanceOf(RECIPIENT)).toBe(300n)
    await t.pool.add(signed(4n, devAccounts()[0].privateKey))
    expect(await call(ctx, setHead, ['0x2'])).toBe('Success')
    expect(t.chain.head.header.number).toBe(2n)
    expect(await balanceOf(RECIPIENT)).toBe(100n)
    expect(await t.chain.getBlockByHash(top.hash())).toBeDefined()
    expect(await t.chain.resolve(3n)).toBeUndefined()
    // The pool re-read the sender's nonce (2 again): its nonce-4 transaction now waits behind a gap.
    const sender = devAccounts()[0].address.toLowerCase()
    expect(
      t.pool
        .content()
        .queued.get(sender)
        ?.map((x) => x.nonce),
    ).toEqual([4n])
    await t.pool.add(signed(2n, devAccounts()[0].privateKey))
    const block = await seal()
    expect(block?.header.number).toBe(3n)
    expect(bytesToHex(block!.header.parentHash)).toBe(bytesToHex((await t.chain.resolve(2n))!.hash()))
    expect(block?.transactions.map((x) => x.nonce)).toEqual([2n])
    expect(await balanceOf(RECIPIENT)).toBe(101n)
  })

  it('answers Unknown block for a block above the head', async () => {
    await expect(call(ctx, setHead, ['0x99'])).rejects.toMatchObject({ code: -39001, message: 'Unknown block' })
  })
})

describe('debug_replayBlock', () => {
  it('executes the head block again on its parent and keeps it the head', async () => {
    const head = t.chain.head
    expect(await call(ctx, replayBlock, ['latest'])).toBe('Success')
    expect(bytesToHex(t.chain.head.hash())).toBe(bytesToHex(head.hash()))
    expect(await balanceOf(RECIPIENT)).toBe(101n)
  })

  it('refuses the genesis block and unknown blocks', async () => {
    await expect(call(ctx, replayBlock, ['0x0'])).rejects.toMatchObject({ code: -32602 })
    await expect(call(ctx, replayBlock, ['0x99'])).rejects.toMatchObject({ code: -32000 })
  })
})

describe('debug_resyncWorldstate', () => {
  it('re-executes the canonical chain and keeps head and state', async () => {
    const head = t.chain.head
    expect(await call(ctx, resyncWorldstate)).toBe(true)
    expect(bytesToHex(t.chain.head.hash())).toBe(bytesToHex(head.hash()))
    expect(await balanceOf(RECIPIENT)).toBe(101n)
  })
})

describe('debug_batchSendRawTransaction', () => {
  it("answers one status per argument, a refusal in Besu's words", async () => {
    const ok = bytesToHex(signed(0n).serialize())
    const again = ok
    const out = await call(ctx, batchSendRawTransaction, [ok, again, '0x1234', 7, '0x416', 'zXDf'])
    expect(out).toEqual([
      { index: 0, success: true },
      // The pool's refusal is the name of Besu's TransactionInvalidReason, not the RPC message.
      { index: 1, success: false, errorMessage: 'TRANSACTION_ALREADY_KNOWN' },
      { index: 2, success: false, errorMessage: 'Invalid raw transaction hex' },
      { index: 3, success: false, errorMessage: 'Invalid raw transaction hex' },
      { index: 4, success: false, errorMessage: 'Invalid raw transaction hex' },
      { index: 5, success: false, errorMessage: 'Invalid raw transaction hex' },
    ])
    expect(t.pool.get(bytesToHex(signed(0n).hash()))).toBeDefined()
  })

  it('names the unsupported v of a legacy signature, and the reason of a sender that cannot pay', async () => {
    const word = (b: number) => new Uint8Array(32).fill(b)
    const fields = [
      new Uint8Array(),
      Uint8Array.of(1),
      Uint8Array.of(0x52, 0x08),
      hexToBytes(RECIPIENT),
      Uint8Array.of(1),
    ]
    const badV = bytesToHex(RLP.encode([...fields, new Uint8Array(), Uint8Array.of(31), word(1), word(2)]))
    const poor = signed(0n, '0x00000000000000000000000000000000000000000000000000000000000000a7')
    const out = await call(ctx, batchSendRawTransaction, [badV, bytesToHex(poor.serialize())])
    expect(out).toEqual([
      { index: 0, success: false, errorMessage: 'An unsupported encoded `v` value of 31 was found' },
      { index: 1, success: false, errorMessage: 'UPFRONT_COST_EXCEEDS_BALANCE' },
    ])
  })

  it('answers an empty list for no arguments', async () => {
    expect(await call(ctx, batchSendRawTransaction, [])).toEqual([])
  })
})

describe('debug_metrics', () => {
  it('reports the sealed blocks and the seal timer by category', async () => {
    const m = await call(ctx, debugMetrics)
    expect(m.blockchain.blocks_sealed).toBeGreaterThanOrEqual(5)
    expect(m.blockchain.block_seal_ms.count).toBeGreaterThanOrEqual(5)
  })
})
