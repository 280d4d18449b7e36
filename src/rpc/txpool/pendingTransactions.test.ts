import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { devAccounts } from '../../chain/devAccounts.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { basaltPendingTransactions, besuPendingTransactions, clientPendingTransactions } from './pendingTransactions.ts'
import { clientTransactions } from './txpoolMethods.ts'

let t: TracingChain
let ctx: RpcContext
const [a, b] = devAccounts()
const TO = '0x000000000000000000000000000000000000beef'
const hashes: string[] = []

async function add(key: string, nonce: bigint, fields: { to?: string; value?: bigint; gasLimit?: bigint }) {
  const tx = createFeeMarket1559Tx(
    {
      chainId: t.chain.common.chainId(),
      nonce,
      to: fields.to as `0x${string}` | undefined,
      value: fields.value ?? 0n,
      gasLimit: fields.gasLimit ?? 21_000n,
      data: fields.to ? undefined : hexToBytes('0x00'),
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    },
    { common: t.chain.commonForNextBlock() },
  ).sign(hexToBytes(key))
  await t.pool.add(tx)
  hashes.push(bytesToHex(tx.hash()))
}

beforeAll(async () => {
  t = await tracingChain()
  ctx = rpcContext(t)
  await add(a.privateKey, 0n, { to: TO, value: 5n }) // 0: a → beef, 5 wei
  await add(a.privateKey, 1n, { to: TO, value: 50n }) // 1: a → beef, 50 wei
  await add(b.privateKey, 0n, { gasLimit: 100_000n }) // 2: b creates a contract
})
afterAll(() => {
  ctx.filters.stop()
  t.close()
})

const pending = async (params: unknown[]) =>
  (await call(ctx, clientPendingTransactions, params)).map((x: { hash: string }) => hashes.indexOf(x.hash)).sort()

describe('txpool_clientPendingTransactions', () => {
  it('lists every pooled transaction without a filter, at most numResults', async () => {
    expect(await pending([])).toEqual([0, 1, 2])
    expect(await pending([2])).toHaveLength(2)
  })

  it('keeps the transactions that pass every field condition', async () => {
    expect(await pending([10, { from: { eq: a.address } }])).toEqual([0, 1])
    expect(await pending([10, { to: { action: 'contract_creation' } }])).toEqual([2])
    expect(await pending([10, { to: { eq: TO }, value: { gt: '0x5' } }])).toEqual([1])
    expect(await pending([10, { value: { lt: '0x6' } }])).toEqual([0, 2])
    expect(await pending([10, { nonce: { eq: '0x1' } }])).toEqual([1])
    expect(await pending([10, { gas: { gt: '0x5208' } }])).toEqual([2])
    expect(await pending([10, { from: { eq: b.address }, nonce: { eq: '0x1' } }])).toEqual([])
  })

  it('answers the same under the besu and basalt names, in the transaction shape', async () => {
    const besu = await call(ctx, besuPendingTransactions, [1, { nonce: { eq: '0x1' } }])
    expect(besu).toEqual(await call(ctx, basaltPendingTransactions, [1, { nonce: { eq: '0x1' } }]))
    expect(besu[0]).toMatchObject({ hash: hashes[1], from: a.address.toLowerCase(), value: '0x32', nonce: '0x1' })
  })

  it("refuses two operators on one field and operators a field does not take with Besu's plain Invalid params", async () => {
    const refused = (filter: unknown) => call(ctx, clientPendingTransactions, [10, filter])
    await expect(refused({ value: { gt: '0x1', lt: '0x9' } })).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid params',
    })
    await expect(refused({ from: { gt: a.address } })).rejects.toMatchObject({
      message: 'Invalid params',
    })
    await expect(refused({ to: { lt: TO } })).rejects.toMatchObject({
      message: 'Invalid params',
    })
    await expect(refused({ nonce: { ne: '0x1' } })).rejects.toMatchObject({
      message: 'Invalid params',
    })
    await expect(refused({ gas: { action: 'contract_creation' } })).rejects.toMatchObject({ message: 'Invalid params' })
    await expect(refused({ value: { gt: 'ten' } })).rejects.toMatchObject({ code: -32602 })
  })

  it("refuses a limit or a filter it cannot read with the texts of Besu's parameters", async () => {
    await expect(call(ctx, clientPendingTransactions, ['ten'])).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid transaction limit params',
    })
    await expect(call(ctx, besuPendingTransactions, [10, 'from'])).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid pending transactions params',
    })
  })
})

describe('txpool_clientTransactions', () => {
  it('lists every pooled transaction with its arrival time', async () => {
    const out = await call(ctx, clientTransactions)
    expect(out.map((x: { hash: string }) => x.hash).sort()).toEqual([...hashes].sort())
    expect(out[0].isReceivedFromLocalSource).toBe(true)
    expect(Number.isNaN(Date.parse(out[0].addedToPoolAt))).toBe(false)
  })
})
