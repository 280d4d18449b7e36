/**
 * Reward traces by Besu's rule, on blocks built here: on proof of work the block's miner gets the
 * miner reward plus 1/32 of it per ommer, each ommer's miner (8 + ommer number − block number) / 8 of
 * it, the block's trace first; a BFT `blockreward` is its beneficiary's; a block that pays nothing has
 * none.
 */
import { createBlock, createSealedCliqueBlock } from '@ethereumjs/block'
import { Common, createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { privateToAddress } from '@ethereumjs/util'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { rewardTraces } from './blockTraces.ts'

const MINER = `0x${'a1'.repeat(20)}`
const OMMER_MINER = `0x${'b2'.repeat(20)}`
const ETH = 10n ** 18n

const ctxWith = (blockReward?: (n: bigint, coinbase: Uint8Array) => unknown) =>
  ({ chain: { blockReward } }) as unknown as RpcContext

function block(hardfork: string, ommers: { number: bigint; coinbase: string }[] = []) {
  const common = new Common({ chain: Mainnet, hardfork })
  return createBlock(
    {
      header: { number: 10n, coinbase: hexToBytes(MINER) },
      uncleHeaders: ommers.map((o) => ({ number: o.number, coinbase: hexToBytes(o.coinbase) })),
    },
    { common },
  )
}

describe('reward traces', () => {
  it('gives the miner its reward and 1/32 more per ommer, then each ommer its share, block trace first', () => {
    const b = block(Hardfork.Constantinople, [{ number: 8n, coinbase: OMMER_MINER }])
    const traces = rewardTraces(ctxWith(), b) as any[]
    expect(traces.map((t) => [t.action.rewardType, t.action.author, BigInt(t.action.value)])).toEqual([
      ['block', MINER, 2n * ETH + (2n * ETH) / 32n],
      ['uncle', OMMER_MINER, (6n * 2n * ETH) / 8n],
    ])
    expect(traces[0]).toMatchObject({
      blockNumber: 10,
      result: null,
      subtraces: 0,
      traceAddress: [],
      transactionHash: null,
      transactionPosition: null,
      type: 'reward',
    })
    expect(Object.keys(traces[0])).toEqual([
      'action',
      'blockHash',
      'blockNumber',
      'result',
      'subtraces',
      'traceAddress',
      'transactionHash',
      'transactionPosition',
      'type',
    ])
  })

  it('uses the fork’s miner reward: 5 ether before Byzantium', () => {
    const [t] = rewardTraces(ctxWith(), block(Hardfork.Homestead)) as any[]
    expect(t.action.value).toBe(`0x${(5n * ETH).toString(16)}`)
  })

  it('names a BFT blockreward beneficiary', () => {
    const beneficiary = hexToBytes(`0x${'c3'.repeat(20)}`)
    const [t] = rewardTraces(
      ctxWith(() => ({ beneficiary, amount: 7n })),
      block(Hardfork.London),
    ) as any[]
    expect(t.action).toEqual({ author: `0x${'c3'.repeat(20)}`, rewardType: 'block', value: '0x7' })
  })

  it('gives a block that pays no reward a block trace of 0 to its coinbase (proof of stake)', () => {
    const traces = rewardTraces(ctxWith(), block(Hardfork.Paris))
    expect(traces).toHaveLength(1)
    expect(traces[0]).toMatchObject({ action: { author: MINER, rewardType: 'block', value: '0x0' }, type: 'reward' })
  })

  it('names the signer of a clique block, whose coinbase is empty, with a reward of 0', () => {
    const common = createCustomCommon(
      { consensus: { type: 'poa', algorithm: 'clique', clique: { period: 15, epoch: 30_000 } } },
      Mainnet,
      { hardfork: Hardfork.London },
    )
    const key = hexToBytes(`0x${'4d'.repeat(32)}`)
    const extraData = new Uint8Array(32 + 65)
    const sealed = createSealedCliqueBlock({ header: { number: 10n, extraData } }, key, { common })
    const [t, ...rest] = rewardTraces(ctxWith(), sealed)
    expect(rest).toEqual([])
    expect(t?.action).toEqual({
      author: bytesToHex(privateToAddress(key)),
      rewardType: 'block',
      value: '0x0',
    })
  })
})
