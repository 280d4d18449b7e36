import { createBlock } from '@ethereumjs/block'
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx, createLegacyTx, createTxFromRLP } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { loadKeccak256 } from '../primitives/keccak.ts'
import { describe, expect, test } from '../runtime/testing.ts'
import { keepSenderAndEncoding, keepTransactionHashes, shareEncodings } from './txMemo.ts'

const KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const keccak256 = await loadKeccak256()
const common = createCustomCommon({ chainId: 1337 }, Mainnet, {
  hardfork: Hardfork.Prague,
  customCrypto: { keccak256 },
})

const TRANSFER = {
  to: `0x${'42'.repeat(20)}`,
  value: 1n,
  gasLimit: 21_000n,
  maxFeePerGas: 10n ** 10n,
  maxPriorityFeePerGas: 1n,
} as const

function signed(nonce: number) {
  return createFeeMarket1559Tx({ ...TRANSFER, nonce }, { common }).sign(KEY)
}

describe('keepSenderAndEncoding', () => {
  test('gives the library sender, encoding and hash, each computed once', () => {
    const raw = signed(0).serialize()
    const reference = createTxFromRLP(raw, { common })
    const tx = createTxFromRLP(raw, { common, freeze: false })
    keepSenderAndEncoding(tx)
    Object.freeze(tx)
    expect(tx.getSenderAddress().toString()).toBe(reference.getSenderAddress().toString())
    expect(tx.getSenderAddress()).toBe(tx.getSenderAddress())
    expect(bytesToHex(tx.serialize())).toBe(bytesToHex(raw))
    expect(tx.serialize()).toBe(tx.serialize())
    expect(bytesToHex(tx.hash())).toBe(bytesToHex(reference.hash()))
  })

  test('a signature that recovers no key throws the library error on every call', () => {
    // An r that is no point's x coordinate: the first of 1..64 the library's recovery refuses.
    const t = signed(0)
    const good = { ...TRANSFER, nonce: 0, chainId: 1337n, v: t.v, s: t.s }
    let expected = ''
    let r = 1n
    for (; r <= 64n && expected === ''; r++) {
      try {
        createFeeMarket1559Tx({ ...good, r }, { common }).getSenderAddress()
      } catch (e) {
        expected = (e as Error).message
      }
    }
    expect(expected).not.toBe('')
    const bad = createFeeMarket1559Tx({ ...good, r: r - 1n }, { common, freeze: false })
    keepSenderAndEncoding(bad)
    expect(() => bad.getSenderAddress()).toThrow(expected)
    expect(() => bad.getSenderAddress()).toThrow(expected)
  })

  test('leaves a frozen transaction to the library', () => {
    const tx = signed(1)
    const { serialize } = tx
    keepSenderAndEncoding(tx)
    expect(tx.serialize).toBe(serialize)
  })
})

describe('a block of copies', () => {
  test('shares the encodings and hashes of the transactions it copies, and keeps them', () => {
    const sources = [signed(0), signed(1)]
    const block = createBlock(
      { header: { number: 1n, gasLimit: 30_000_000n }, transactions: sources },
      { common, freeze: false },
    )
    const reference = sources.map((t) => createTxFromRLP(t.serialize(), { common }))
    expect(block.transactions[0]).not.toBe(sources[0])
    shareEncodings(block, sources)
    keepTransactionHashes(block)
    block.transactions.forEach((tx, i) => {
      expect(bytesToHex(tx.hash())).toBe(bytesToHex(reference[i].hash()))
      expect(tx.hash()).toBe(tx.hash())
      expect(bytesToHex(tx.serialize())).toBe(bytesToHex(reference[i].serialize()))
    })
  })

  test('a list of other length, or of other types, is not shared', () => {
    const sources = [signed(0)]
    const block = createBlock(
      { header: { number: 1n, gasLimit: 30_000_000n }, transactions: sources },
      { common, freeze: false },
    )
    const legacy = createLegacyTx({ nonce: 0, gasPrice: 1n, gasLimit: 21_000n }, { common }).sign(KEY)
    const before = block.transactions[0].serialize
    shareEncodings(block, [...sources, legacy])
    shareEncodings(block, [legacy])
    expect(block.transactions[0].serialize).toBe(before)
  })
})
