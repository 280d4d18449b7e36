import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import { poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { DevSealer } from '../producer/devSealer.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { type BaseFeeMarket, baseFeeMarketOf, EIP1559_MARKET } from './baseFee.ts'
import { importBlock } from './blockImporter.ts'
import type { Chain } from './chain.ts'
import { devAccounts } from './devAccounts.ts'
import { normalizeGenesis, parseGenesisText } from './genesis.ts'
import { openMemoryChain } from './memoryChain.ts'

const KEY = hexToBytes(devAccounts()[0].privateKey)
const TO = `0x${'42'.repeat(20)}` as const

/** A post-merge London chain sealed by the dev sealer, with `extra` in its config. */
function freeGasGenesis(extra: Record<string, unknown>) {
  return normalizeGenesis({
    config: { chainId: 1337, londonBlock: 0, terminalTotalDifficulty: 0, shanghaiTime: 0, ...extra },
    difficulty: '0x0',
    gasLimit: '0x1c9c380',
    alloc: { [devAccounts()[0].address]: { balance: '0xffffffffffffffffffff' } },
  })
}

function sealerOf(chain: Chain): { sealer: DevSealer; pool: TxPool } {
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock: manualClock(1_700_000_000_000) })
  return { sealer, pool }
}

describe('baseFeeMarketOf', () => {
  it("reads Besu's fee market switches, zeroBaseFee first", () => {
    expect(baseFeeMarketOf({}, 1000n)).toEqual(EIP1559_MARKET)
    expect(baseFeeMarketOf({ zeroBaseFee: false, fixedBaseFee: false }, 1000n)).toEqual(EIP1559_MARKET)
    expect(baseFeeMarketOf({ zeroBaseFee: true }, 1000n)).toEqual({ kind: 'fixed', fee: 0n })
    expect(baseFeeMarketOf({ fixedBaseFee: true }, 7n)).toEqual({ kind: 'fixed', fee: 7n })
    expect(baseFeeMarketOf({ zeroBaseFee: true, fixedBaseFee: true }, 7n)).toEqual({ kind: 'fixed', fee: 0n })
  })

  it('refuses a switch that is not a JSON boolean, naming it', () => {
    const text = (v: string) => `{"config":{"chainId":1,"londonBlock":0,"ZEROBASEFEE":${v}},"gasLimit":"0x1000000"}`
    expect(parseGenesisText(text('true'), 'g.json').config.zeroBaseFee).toBe(true)
    expect(() => parseGenesisText(text('"true"'), 'g.json')).toThrow('config.zeroBaseFee must be true or false')
  })
})

describe('zero and fixed base fee chains', () => {
  it('seal every block with base fee 0 and mine transactions that pay nothing', async () => {
    const genesis = freeGasGenesis({ zeroBaseFee: true })
    const chain = await openMemoryChain(genesis)
    expect(chain.head.header.baseFeePerGas).toBe(1_000_000_000n)
    const { sealer, pool } = sealerOf(chain)
    const common = chain.commonForNextBlock()
    await pool.add(
      createFeeMarket1559Tx(
        { nonce: 0n, to: TO, value: 1n, gasLimit: 21_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
        { common },
      ).sign(KEY),
    )
    await pool.add(
      createLegacyTx({ nonce: 1n, to: TO, value: 1n, gasLimit: 21_000n, gasPrice: 0n }, { common }).sign(KEY),
    )
    const block = (await sealer.sealBlock(false))!
    expect(block.header.baseFeePerGas).toBe(0n)
    expect(block.transactions.length).toBe(2)
    const blocks = [block]
    // A full block would raise an EIP-1559 base fee; here it stays 0.
    for (let i = 0; i < 3; i++) blocks.push((await sealer.sealBlock(true))!)
    expect(blocks.map((b) => b.header.baseFeePerGas)).toEqual([0n, 0n, 0n, 0n])
    expect(chain.nextBaseFee()).toBe(0n)
    const replica = await openMemoryChain(genesis)
    for (const b of blocks) await importBlock(replica, b, { setHead: true })
    expect(replica.head.hash()).toEqual(chain.head.hash())
  })

  it('keep the fixed base fee (the minimum gas price) on every block', async () => {
    const genesis = freeGasGenesis({ fixedBaseFee: true })
    const market: BaseFeeMarket = { kind: 'fixed', fee: 5n }
    const chain = await openMemoryChain(genesis, {}, market)
    const { sealer, pool } = sealerOf(chain)
    const common = chain.commonForNextBlock()
    await pool.add(createLegacyTx({ nonce: 0n, to: TO, gasLimit: 21_000n, gasPrice: 5n }, { common }).sign(KEY))
    const blocks = [(await sealer.sealBlock(false))!, (await sealer.sealBlock(true))!]
    expect(blocks.map((b) => b.header.baseFeePerGas)).toEqual([5n, 5n])
    expect(blocks[0].transactions.length).toBe(1)
    // Besu checks no base fee in these markets: a zero base fee chain of the same genesis imports
    // them, an EIP-1559 chain refuses the first (its base fee should have been 875000000).
    const zero = await openMemoryChain(genesis, {}, { kind: 'fixed', fee: 0n })
    for (const b of blocks) await importBlock(zero, b, { setHead: true })
    expect(zero.head.hash()).toEqual(chain.head.hash())
    const london = await openMemoryChain(genesis, {}, EIP1559_MARKET)
    await expect(importBlock(london, blocks[0], { setHead: true })).rejects.toThrow('invalid base fee: 5')
  })

  it("gives the first London block after the genesis the market's fee and twice the gas limit, as Besu does", async () => {
    // The EIP-1559 chain for comparison: its fork block has the initial 1 gwei, then 7/8 of it.
    for (const [extra, market, fees] of [
      [{ zeroBaseFee: true }, undefined, [0n, 0n]],
      [{ fixedBaseFee: true }, { kind: 'fixed', fee: 5n }, [5n, 5n]],
      [{}, undefined, [1_000_000_000n, 875_000_000n]],
    ] as const) {
      const genesis = normalizeGenesis({
        config: { chainId: 1337, berlinBlock: 0, londonBlock: 2, ethash: { fixeddifficulty: 1 }, ...extra },
        difficulty: '0x1',
        gasLimit: '0x1c9c380',
      })
      const chain = await openMemoryChain(genesis, {}, market)
      const { sealer } = sealerOf(chain)
      const blocks = []
      for (let i = 0; i < 3; i++) blocks.push((await sealer.sealBlock(true))!)
      expect(blocks.map((b) => b.header.baseFeePerGas)).toEqual([undefined, ...fees])
      // EIP-1559 doubles the gas limit at the fork, as Besu's producers do.
      expect(blocks[1].header.gasLimit).toBe(blocks[0].header.gasLimit * 2n)
      const replica = await openMemoryChain(genesis, {}, market)
      for (const b of blocks) await importBlock(replica, b, { setHead: true, skipPowValidation: true })
      expect(replica.head.hash()).toEqual(chain.head.hash())
    }
  })

  it('price blob gas at 0 after Cancun, as Besu does in both markets', async () => {
    const chain = await openMemoryChain(freeGasGenesis({ zeroBaseFee: true, cancunTime: 0 }))
    const { sealer } = sealerOf(chain)
    const block = (await sealer.sealBlock(true))!
    expect(block.header.getBlobGasPrice()).toBe(0n)
    expect(block.header.calcNextBlobGasPrice(block.header.common)).toBe(0n)
    const london = await openMemoryChain(freeGasGenesis({ cancunTime: 0 }))
    expect(london.head.header.getBlobGasPrice()).toBe(1n)
  })
})
