import { createBlock } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createBlob4844Tx, createLegacyTx } from '@ethereumjs/tx'
import { privateToAddress } from '@ethereumjs/util'
import { devAccounts } from '../../chain/devAccounts.ts'
import { hexToBytes } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { TransactionAdapter } from './transactionAdapter.ts'

const key = hexToBytes(devAccounts()[0].privateKey)
const sender = privateToAddress(key)
// Building a blob transaction object needs a KZG backend present, though nothing here calls it.
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun, customCrypto: { kzg: {} as never } })
const HASHES = [`0x01${'aa'.repeat(31)}`, `0x01${'bb'.repeat(31)}`] as const

function blobTx() {
  return createBlob4844Tx(
    {
      chainId: 1n,
      to: `0x${'b1'.repeat(20)}`,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
      maxFeePerBlobGas: 7n,
      blobVersionedHashes: [...HASHES],
    },
    { common },
  ).sign(key)
}

describe('TransactionAdapter blob fields', () => {
  it('answers a mined blob transaction with its blob gas, price and hashes, and no v', () => {
    const tx = blobTx()
    const block = createBlock(
      {
        header: { number: 1n, baseFeePerGas: 7n, excessBlobGas: 10n * 131072n, blobGasUsed: 262144n },
        transactions: [tx],
      },
      { common },
    )
    const t = new TransactionAdapter(tx, sender, { block, index: 0 })
    expect(t.type()).toBe(3)
    expect(t.maxFeePerBlobGas()).toBe(7n)
    expect(t.blobGasUsed()).toBe(2n * 131072n)
    expect(t.blobGasPrice()).toBe(block.header.getBlobGasPrice())
    expect(t.blobVersionedHashes()).toEqual(HASHES.map((h) => hexToBytes(h)))
    expect(t.v()).toBeUndefined()
    expect(t.yParity()).toBe(tx.v!)
  })

  it('leaves blob gas and its price out while the blob transaction is pending', () => {
    const t = new TransactionAdapter(blobTx(), sender)
    expect([t.blobGasUsed(), t.blobGasPrice(), t.effectiveGasPrice()]).toEqual([undefined, undefined, undefined])
    expect(t.maxFeePerBlobGas()).toBe(7n)
  })

  it('answers a legacy transaction with no blob fields, an empty hash list, v and no yParity (as Besu)', () => {
    const tx = createLegacyTx({ to: `0x${'b1'.repeat(20)}`, gasLimit: 21_000n, gasPrice: 10n }, { common }).sign(key)
    const t = new TransactionAdapter(tx, sender)
    expect([t.maxFeePerBlobGas(), t.blobGasUsed(), t.blobGasPrice()]).toEqual([undefined, undefined, undefined])
    expect(t.blobVersionedHashes()).toEqual([])
    // EIP-155 on chain 1: v is 37 or 38; Besu's legacy transactions never answer yParity.
    expect([37n, 38n]).toContain(t.v()!)
    expect(t.yParity()).toBeUndefined()
    expect(t.maxFeePerGas()).toBeUndefined()
    expect(t.accessList()).toEqual([])
  })
})
