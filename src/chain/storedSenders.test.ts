import { createBlock } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { bytesToHex } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { keepHeaderHash, useStoredSenders } from './storedSenders.ts'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
const KEY = new Uint8Array(32).fill(7)
const SENDER = new Uint8Array(20).fill(0xab)

function openBlock() {
  const tx = createFeeMarket1559Tx({ gasLimit: 21_000n, maxFeePerGas: 10n, to: new Uint8Array(20) }, { common }).sign(
    KEY,
  )
  return createBlock(
    { header: { number: 1n, gasLimit: 30_000_000n, baseFeePerGas: 7n }, transactions: [tx] },
    { common, freeze: false },
  )
}

describe('keepHeaderHash', () => {
  it('makes an open block hash its header once, to the value a frozen header has', () => {
    const block = openBlock()
    expect(block.hash()).not.toBe(block.hash())
    const frozen = createBlock({ header: block.header.toJSON() }, { common })
    keepHeaderHash(block)
    expect(block.hash()).toBe(block.hash())
    expect(bytesToHex(block.hash())).toBe(bytesToHex(frozen.hash()))
  })

  it('leaves the block open for the stored senders', () => {
    const block = openBlock()
    keepHeaderHash(block)
    useStoredSenders(block, SENDER)
    expect(bytesToHex(block.transactions[0].getSenderAddress().bytes)).toBe(bytesToHex(SENDER))
  })
})
