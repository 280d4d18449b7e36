/**
 * Replays below a BONSAI window (parent state from the state history) against the same chain kept
 * with a window that covers it (parent state from the trie), tracer by tracer, in an order that moves
 * the kept replay VMs from block to block and between the two kinds of state.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { computeContractAddress } from '../../chain/addresses.ts'
import type { Chain } from '../../chain/chain.ts'
import { devAccounts } from '../../chain/devAccounts.ts'
import type { NodeConfig } from '../../node/config.ts'
import { openChain, poolChainView } from '../../node/node.ts'
import { manualClock } from '../../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { DevSealer } from '../../producer/devSealer.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { TxPool } from '../../txpool/txPool.ts'
import { replayBlock } from './blockReplayer.ts'
import { createTracer, type TraceConfig } from './createTracer.ts'

/** The shared harness's ERC-20 (constructor: supply to the deployer; transfer, balanceOf). */
const TOKEN_INITCODE =
  '0x6080604052348015600f57600080fd5b506040516102ac3803806102ac833981016040819052602c916078565b336000818152602081815260408083208590556001859055518481527fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef910160405180910390a3506090565b600060208284031215608957600080fd5b5051919050565b61020d8061009f6000396000f3fe608060405234801561001057600080fd5b50600436106100415760003560e01c806318160ddd1461004657806370a0823114610062578063a9059cbb14610082575b600080fd5b61004f60015481565b6040519081526020015b60405180910390f35b61004f6100703660046101a0565b60006020819052908152604090205481565b6100956100903660046101c2565b6100a5565b6040519015158152602001610059565b33600090815260208190526040812054828110156101005760405162461bcd60e51b8152602060048201526014602482015273696e73756666696369656e742062616c616e636560601b604482015260640160405180910390fd5b3360009081526020819052604080822085840390556001600160a01b0386168252812080548592906101339084906101ec565b90915550506040518381526001600160a01b0385169033907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef9060200160405180910390a360019150505b92915050565b80356001600160a01b038116811461019b57600080fd5b919050565b6000602082840312156101b257600080fd5b6101bb82610184565b9392505050565b600080604083850312156101d557600080fd5b6101de83610184565b946020939093013593505050565b8082018082111561017e57634e487b7160e01b600052601160045260246000fd'
const pad32 = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0')
const BLOCKS = 8
const CONFIGS: TraceConfig[] = [
  {},
  { enableMemory: true, enableReturnData: true },
  { tracer: 'callTracer' },
  { tracer: 'prestateTracer' },
  { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
]

type Storage = Pick<NodeConfig, 'dataStorageFormat' | 'bonsaiHistoricalBlockLimit' | 'isBonsaiArchive'>

/**
 * A dev chain on a manual clock: the token deployed, then per block token transfers from three
 * senders (each to a new holder and back to the deployer) and an ETH transfer.
 */
async function tokenChain(storage: Storage): Promise<{ chain: Chain; close: () => void }> {
  const opened = await openChain({ dataPath: ':memory:', ...storage })
  const { chain } = opened
  const clock = manualClock(1_700_000_000_000)
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20).fill(0xc0), clock })
  const accounts = devAccounts().slice(0, 3)
  const nonces = accounts.map(() => 0n)
  const send = async (from: number, to: string | undefined, data: string, value = 0n) => {
    const tx = createFeeMarket1559Tx(
      {
        chainId: chain.common.chainId(),
        nonce: nonces[from]++,
        to: to as `0x${string}` | undefined,
        data: hexToBytes(data),
        value,
        gasLimit: 1_000_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: chain.commonForNextBlock() },
    ).sign(hexToBytes(accounts[from].privateKey))
    await pool.add(tx)
  }
  const seal = async () => {
    clock.advance(12_000)
    await sealer.sealBlock(false)
  }
  const token = bytesToHex(computeContractAddress(hexToBytes(accounts[0].address), 0n))
  const transfer = (to: string, amount: bigint) => `0xa9059cbb${pad32(to)}${pad32(amount.toString(16))}`
  await send(0, undefined, TOKEN_INITCODE + pad32((10n ** 30n).toString(16)))
  await seal()
  await send(0, token, transfer(accounts[1].address, 10n ** 20n))
  await send(0, token, transfer(accounts[2].address, 10n ** 20n))
  await seal()
  for (let b = 0; b < BLOCKS; b++) {
    const holder = `0x${(0x1000 + b).toString(16).padStart(40, '0')}`
    await send(0, token, transfer(holder, BigInt(b + 1)))
    await send(1, token, transfer(holder, 7n))
    await send(2, token, transfer(accounts[0].address, 3n))
    await send(1, holder, '0x', 1000n)
    await seal()
  }
  return opened
}

const json = (x: unknown) => JSON.stringify(x, (_k, v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v))

/** Every transaction of blocks `numbers`, traced with `config`, one replay per transaction. */
async function traces(chain: Chain, numbers: bigint[], config: TraceConfig): Promise<string[]> {
  const out: string[] = []
  for (const n of numbers) {
    const block = (await chain.getBlockByNumber(n))!
    for (let i = 0; i < block.transactions.length; i++) {
      const tracer = createTracer(config)
      const r = await replayBlock(chain, block, (_tx, k) => (k === i ? tracer : undefined), i)
      out.push(`${n}/${i} ${json(r.get(i))}`)
    }
  }
  return out
}

describe('replays on the state history', () => {
  it('trace as replays on the trie do, block after block, back and forth, and between both kinds', async () => {
    const below = await tokenChain({
      dataStorageFormat: 'BONSAI',
      bonsaiHistoricalBlockLimit: 4,
      isBonsaiArchive: true,
    })
    const covered = await tokenChain({
      dataStorageFormat: 'BONSAI',
      bonsaiHistoricalBlockLimit: 1000,
      isBonsaiArchive: true,
    })
    try {
      expect(bytesToHex(below.chain.head.hash())).toBe(bytesToHex(covered.chain.head.hash()))
      const head = below.chain.head.header.number
      // Ascending (each replay's parent is the last one's block), then descending, then alternating
      // between a block below the window and one inside it (the two kinds of state).
      const ascending = Array.from({ length: Number(head) - 1 }, (_, i) => BigInt(i + 1))
      const order = [...ascending, ...[...ascending].reverse(), 3n, head, 4n, head - 1n, 3n, 5n]
      expect(below.chain.isHistoricalState(await below.chain.getBlockByNumber(3n).then((b) => b!))).toBe(true)
      expect(covered.chain.isHistoricalState(await covered.chain.getBlockByNumber(3n).then((b) => b!))).toBe(false)
      for (const config of CONFIGS) {
        const expected = await traces(covered.chain, order, config)
        const got = await traces(below.chain, order, config)
        expect(got.length).toBe(expected.length)
        for (let k = 0; k < got.length; k++) expect(got[k]).toBe(expected[k])
      }
      // Replays asked for at once queue on the kept VMs, each moving the state to its own parent.
      const expected = await traces(covered.chain, order, {})
      const atOnce = await Promise.all(order.map((n) => traces(below.chain, [n], {})))
      expect(atOnce.flat()).toEqual(expected)
    } finally {
      below.close()
      covered.close()
    }
  })
})
