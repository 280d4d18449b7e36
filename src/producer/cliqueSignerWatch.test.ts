/**
 * A clique node whose key is voted in starts sealing in its turns without a restart, and stops
 * when it is voted out (Besu's clique miner checks the signers at the parent of every block).
 */
import { cliqueSigner } from '@ethereumjs/block'
import { privateToAddress } from '@ethereumjs/util'
import { importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { CliqueNotSignerError } from '../chain/clique.ts'
import { normalizeGenesis } from '../chain/genesis.ts'
import { openMemoryChain } from '../chain/memoryChain.ts'
import { poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { CliqueSignerWatch } from './cliqueSignerWatch.ts'
import { DevSealer } from './devSealer.ts'

const KEY_A = hexToBytes(`0x${'a1'.repeat(32)}`)
const KEY_B = hexToBytes(`0x${'b2'.repeat(32)}`)
const ADDRESS_A = bytesToHex(privateToAddress(KEY_A))
const ADDRESS_B = bytesToHex(privateToAddress(KEY_B))

const genesis = normalizeGenesis({
  config: { chainId: 1982, londonBlock: 0, clique: { blockperiodseconds: 2, epochlength: 100 } },
  difficulty: '0x1',
  gasLimit: '0x1c9c380',
  extraData: `0x${'00'.repeat(32)}${ADDRESS_A.slice(2)}${'00'.repeat(65)}`,
  alloc: {},
})

function openSealer(
  chain: Chain,
  key: Uint8Array,
  proposals: Map<string, boolean>,
  blockPeriodMs?: number,
  wait?: (ms: number) => Promise<void>,
): DevSealer {
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
  const clock = manualClock(1_700_000_000_000)
  return new DevSealer(chain, pool, {
    coinbase: new Uint8Array(20),
    cliqueKey: key,
    cliqueProposals: proposals,
    blockPeriodMs,
    clock,
    // The out-of-turn delay at its shortest (1 ms): the wait is the block period alone.
    random: () => 0,
    wait,
  })
}

/** EIP-225's difficulty of `signer` at `number`: 2 when it is signers[number mod n] (ascending), else 1. */
function expectedDifficulty(signers: string[], number: bigint, signer: string): bigint {
  const sorted = [...signers].sort()
  return sorted[Number(number % BigInt(sorted.length))] === signer ? 2n : 1n
}

/** Waits (bounded) until `chain`'s head reaches `number`. */
async function headReaches(chain: Chain, number: bigint, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (chain.head.header.number < number && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
  return chain.head.header.number >= number
}

describe('a clique signer voted in or out', () => {
  it('starts taking its turns once the signer votes it in, and stops when a drop vote passes', async () => {
    const chainA = await openMemoryChain(genesis)
    const chainB = await openMemoryChain(genesis)
    const proposalsA = new Map([[ADDRESS_B, true]])
    const proposalsB = new Map<string, boolean>()
    const sealerA = openSealer(chainA, KEY_A, proposalsA)
    const sealerB = openSealer(chainB, KEY_B, proposalsB)
    const watchB = new CliqueSignerWatch(chainB, KEY_B)
    /** Seals the next block on `from` and imports it into `to`; both heads must agree. */
    const turn = async (from: DevSealer, fromChain: Chain, toChain: Chain) => {
      const block = (await from.sealBlock(true))!
      await importBlock(toChain, block, { setHead: true })
      expect(bytesToHex(toChain.head.hash())).toBe(bytesToHex(fromChain.head.hash()))
      return block
    }

    expect(watchB.check()).toBe('not-signer')
    await expect(sealerB.sealBlock(true)).rejects.toBeInstanceOf(CliqueNotSignerError)
    // Block 1: A, the only signer, votes B in; one vote of one signer is a majority.
    const one = await turn(sealerA, chainA, chainB)
    expect(one.header.coinbase.toString()).toBe(ADDRESS_B)
    expect(bytesToHex(one.header.nonce)).toBe('0xffffffffffffffff')
    expect(watchB.check()).toBe('voted-in')
    expect(watchB.check()).toBeUndefined()
    // Two signers: each may seal one block of any two in a row, so they alternate.
    const both = [ADDRESS_A, ADDRESS_B]
    await expect(sealerA.sealBlock(true)).rejects.toThrow('sealed one of the last 1 blocks')
    for (let n = 2n; n <= 4n; n++) {
      const isB = n % 2n === 0n
      const block = isB ? await turn(sealerB, chainB, chainA) : await turn(sealerA, chainA, chainB)
      const signer = isB ? ADDRESS_B : ADDRESS_A
      expect(cliqueSigner(block.header).toString()).toBe(signer)
      expect(block.header.difficulty).toBe(expectedDifficulty(both, n, signer))
    }
    // Both vote B out: A's vote (1 of 2) at block 5, B's own at block 6 makes the majority.
    proposalsA.set(ADDRESS_B, false)
    proposalsB.set(ADDRESS_B, false)
    expect(bytesToHex((await turn(sealerA, chainA, chainB)).header.nonce)).toBe('0x0000000000000000')
    expect(watchB.check()).toBeUndefined()
    const six = await turn(sealerB, chainB, chainA)
    expect(six.header.coinbase.toString()).toBe(ADDRESS_B)
    expect(watchB.check()).toBe('voted-out')
    await expect(sealerB.sealBlock(true)).rejects.toThrow(`the node key's address ${ADDRESS_B} is not a clique signer`)
    // A alone again: every block is its turn.
    for (let n = 7n; n <= 8n; n++) expect((await turn(sealerA, chainA, chainB)).header.difficulty).toBe(2n)
    expect(chainB.head.header.number).toBe(8n)
  })

  it('a running interval sealer stays idle while not a signer and seals once voted in, without a restart', async () => {
    const chainA = await openMemoryChain(genesis)
    const chainB = await openMemoryChain(genesis)
    const sealerA = openSealer(chainA, KEY_A, new Map([[ADDRESS_B, true]]))
    const sealerB = openSealer(chainB, KEY_B, new Map(), 20)
    sealerB.start()
    try {
      // Several periods pass: B is no signer and builds nothing.
      expect(await headReaches(chainB, 1n, 200)).toBe(false)
      await importBlock(chainB, (await sealerA.sealBlock(true))!, { setHead: true })
      // The next period after the vote (2 s: the manual clock stands still): B seals block 2 on its own.
      expect(await headReaches(chainB, 2n, 15_000)).toBe(true)
      const two = (await chainB.getBlockByNumber(2n))!
      expect(cliqueSigner(two.header).toString()).toBe(ADDRESS_B)
      expect(two.header.difficulty).toBe(expectedDifficulty([ADDRESS_A, ADDRESS_B], 2n, ADDRESS_B))
      // A imports it; then B waits for A's block (it sealed the last one).
      await importBlock(chainA, two, { setHead: true })
      expect(await headReaches(chainB, 3n, 200)).toBe(false)
    } finally {
      await sealerB.stop()
    }
  }, 30_000)

  it('stops at once while a running signer waits for its turn', async () => {
    const chain = await openMemoryChain(genesis)
    let isWaiting = false
    // A wait that never ends by itself: only the stop can end it.
    const sealer = openSealer(chain, KEY_A, new Map(), 20, () => {
      isWaiting = true
      return new Promise(() => {})
    })
    // Block 1 at the clock's time: block 2 is due a period (2 s) later, which the manual clock never reaches.
    await sealer.sealBlock(true)
    sealer.start()
    const deadline = Date.now() + 5_000
    while (!isWaiting && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    expect(isWaiting).toBe(true)
    const outcome = await Promise.race([
      sealer.stop().then(() => 'stopped'),
      new Promise((r) => setTimeout(() => r('still waiting'), 5_000)),
    ])
    expect(outcome).toBe('stopped')
    expect(chain.head.header.number).toBe(1n)
  })
})
