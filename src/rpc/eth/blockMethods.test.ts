/** Uncles as eth_getUncleBy* answer them: the header as a block with no transactions and no ommers. */
import { createBlock, createBlockHeader } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { call } from '../../../test/rpc/rpcHarness.ts'
import { bytesToHex, hexToBytes, toQuantity } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { getUncleByBlockHashAndIndex, getUncleByBlockNumberAndIndex } from './blockMethods.ts'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Homestead })
const header = (number: bigint, coinbase: string) =>
  createBlockHeader(
    { number, coinbase: hexToBytes(coinbase), difficulty: 0x20040n, gasLimit: 0x2fefd8n, timestamp: 0x561bc2e7n },
    { common },
  )
const uncles = [header(2n, `0x${'a9'.repeat(20)}`), header(2n, `0x${'bc'.repeat(20)}`)]
const block = createBlock({ header: { number: 4n, gasLimit: 0x2fefd8n }, uncleHeaders: uncles }, { common })
const ctx = {
  chain: {
    resolve: async () => block,
    getBlockByHash: async (h: Uint8Array) => (bytesToHex(h) === bytesToHex(block.hash()) ? block : undefined),
  },
} as unknown as RpcContext

describe('eth_getUncleBy*', () => {
  it('answers the uncle with the size of a block of its header alone, as Besu and geth measure it', async () => {
    const out = await call(ctx, getUncleByBlockNumberAndIndex, ['0x4', '0x1'])
    expect(out.hash).toBe(bytesToHex(uncles[1].hash()))
    expect(out.miner).toBe(`0x${'bc'.repeat(20)}`)
    // RLP([header, [], []]): the header, two empty lists and the list's own prefix.
    const alone = createBlock({ header: uncles[1] }, { common }).serialize().length
    expect(out.size).toBe(toQuantity(alone))
    expect(out.transactions).toEqual([])
    expect(out.uncles).toEqual([])
  })

  it('finds it by the block hash too, and answers null past the last uncle', async () => {
    const byHash = await call(ctx, getUncleByBlockHashAndIndex, [bytesToHex(block.hash()), '0x0'])
    expect(byHash.hash).toBe(bytesToHex(uncles[0].hash()))
    expect(await call(ctx, getUncleByBlockHashAndIndex, [bytesToHex(block.hash()), '0x2'])).toBeNull()
  })
})
