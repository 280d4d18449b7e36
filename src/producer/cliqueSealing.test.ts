/**
 * Clique blocks sealed by the node key (Besu's `--miner-enabled` on a clique network): in-turn
 * difficulty 2 and out-of-turn 1, 97-byte extraData with the seal, checkpoints listing the signers,
 * the block period, fees to the signer, and blocks a second node imports under clique's rules.
 */

import { cliqueSigner, createSealedCliqueBlock } from '@ethereumjs/block'
import { createLegacyTx } from '@ethereumjs/tx'
import { Address, privateToAddress } from '@ethereumjs/util'
import { importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { cliqueExtraData, cliqueOutOfTurnDelayMs, cliqueSignersFor, cliqueTallyAfter } from '../chain/clique.ts'
import { normalizeGenesis } from '../chain/genesis.ts'
import { openMemoryChain } from '../chain/memoryChain.ts'
import { poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it, sleep } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { DevSealer } from './devSealer.ts'

const NODE_KEY = hexToBytes(`0x${'42'.repeat(32)}`)
const NODE_ADDRESS = bytesToHex(privateToAddress(NODE_KEY))
const SENDER_KEY = hexToBytes(`0x${'07'.repeat(32)}`)
const SENDER = bytesToHex(privateToAddress(SENDER_KEY))
const OTHER_KEY = hexToBytes(`0x${'66'.repeat(32)}`)
const OTHER_ADDRESS = bytesToHex(privateToAddress(OTHER_KEY))

function cliqueGenesis(signers: string[], config: Record<string, unknown> = {}) {
  return normalizeGenesis({
    config: {
      chainId: 1981,
      londonBlock: 0,
      clique: { blockperiodseconds: 4, epochlength: 3 },
      ...config,
    },
    difficulty: '0x1',
    gasLimit: '0x1c9c380',
    extraData: `0x${'00'.repeat(32)}${signers.map((s) => s.slice(2)).join('')}${'00'.repeat(65)}`,
    alloc: { [SENDER]: { balance: '1000000000000000000000' } },
  })
}

async function openSealer(
  chain: Chain,
  cliqueProposals?: Map<string, boolean>,
  extraData?: Uint8Array,
): Promise<{ sealer: DevSealer; pool: TxPool }> {
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const clock = manualClock(1_700_000_000_000)
  const opts = { coinbase: new Uint8Array(20), cliqueKey: NODE_KEY, cliqueProposals, clock, miner: { extraData } }
  return { sealer: new DevSealer(chain, pool, opts), pool }
}

/** An empty block on `chain`'s head sealed by `key` with `difficulty` (a checkpoint lists the signers). */
async function sealedEmpty(
  chain: Chain,
  key: Uint8Array,
  difficulty: bigint,
  vote?: { coinbase: `0x${string}`; nonce: `0x${string}` },
) {
  const parent = chain.head.header
  const common = chain.commonForNextBlock()
  const number = parent.number + 1n
  const header = {
    parentHash: parent.hash(),
    number,
    timestamp: parent.timestamp + 4n,
    gasLimit: parent.gasLimit,
    difficulty,
    extraData: cliqueExtraData(common, number, cliqueSignersFor(chain, parent)),
    stateRoot: parent.stateRoot,
    baseFeePerGas: parent.calcNextBaseFee(),
    ...vote,
  }
  return createSealedCliqueBlock({ header }, key, { common })
}

describe('clique sealing with the node key', () => {
  it('seals in-turn blocks with difficulty 2, a 97-byte sealed extraData, checkpoints and the period', async () => {
    const genesis = cliqueGenesis([NODE_ADDRESS])
    const chain = await openMemoryChain(genesis)
    const { sealer, pool } = await openSealer(chain)
    const tx = createLegacyTx(
      { nonce: 0n, to: `0x${'be'.repeat(20)}`, value: 5n, gasLimit: 21_000n, gasPrice: 2n * 10n ** 9n },
      { common: chain.commonForNextBlock() },
    ).sign(SENDER_KEY)
    await pool.add(tx)
    const blocks = []
    for (let i = 0; i < 4; i++) blocks.push((await sealer.sealBlock(true))!)
    expect(blocks[0].transactions.length).toBe(1)
    for (const b of blocks) {
      expect(b.header.difficulty).toBe(2n)
      expect(cliqueSigner(b.header).toString()).toBe(NODE_ADDRESS)
      expect(b.header.coinbase.toString()).toBe(`0x${'00'.repeat(20)}`)
      expect(b.header.mixHash.every((x) => x === 0)).toBe(true)
    }
    // Block 3 is a checkpoint (epochlength 3): vanity, the one signer, seal.
    expect(blocks.map((b) => b.header.extraData.length)).toEqual([97, 97, 117, 97])
    expect(bytesToHex(blocks[2].header.extraData.subarray(32, 52))).toBe(NODE_ADDRESS)
    // blockperiodseconds 4: the clock does not move, the period spaces the blocks.
    for (let i = 1; i < blocks.length; i++)
      expect(blocks[i].header.timestamp - blocks[i - 1].header.timestamp).toBeGreaterThanOrEqual(4n)
    // Fees go to the signer (clique has no block reward): 21,000 gas at the 2 gwei price less the base fee.
    const base = blocks[0].header.baseFeePerGas!
    const signer = await chain.stateAt(chain.head).getAccount(new Address(hexToBytes(NODE_ADDRESS)))
    expect(signer?.balance).toBe(21_000n * (2n * 10n ** 9n - base))

    // Another node imports them (execution, roots, clique header rules).
    const replica = await openMemoryChain(genesis)
    for (const b of blocks) await importBlock(replica, b, { setHead: true })
    expect(bytesToHex(replica.head.hash())).toBe(bytesToHex(chain.head.hash()))
  })

  it("puts --miner-extra-data in the vanity, zero-padded on the left as Besu's clique miner does", async () => {
    const genesis = cliqueGenesis([NODE_ADDRESS])
    const chain = await openMemoryChain(genesis)
    const vanity = new TextEncoder().encode('basalt')
    const { sealer } = await openSealer(chain, undefined, vanity)
    const block = (await sealer.sealBlock(true))!
    expect(block.header.extraData.length).toBe(97)
    expect(bytesToHex(block.header.extraData.subarray(0, 32))).toBe(`0x${'00'.repeat(26)}626173616c74`)
    expect(cliqueSigner(block.header).toString()).toBe(NODE_ADDRESS)
    const replica = await openMemoryChain(genesis)
    await importBlock(replica, block, { setHead: true })
    expect(bytesToHex(replica.head.hash())).toBe(bytesToHex(block.hash()))
  })

  it('takes turns with another signer: difficulty 2 in turn, 1 out of turn, never two blocks in a row', async () => {
    const genesis = cliqueGenesis([OTHER_ADDRESS, NODE_ADDRESS])
    const sorted = [OTHER_ADDRESS, NODE_ADDRESS].sort()
    const turn = (height: bigint, who: string) => (sorted[Number(height % 2n)] === who ? 2n : 1n)
    const nodeDifficulties = new Set<bigint>()
    // The node seals the odd heights, then (another chain) the even ones: in turn on one of the two.
    for (const isNodeFirst of [true, false]) {
      const chain = await openMemoryChain(genesis)
      const { sealer } = await openSealer(chain)
      for (let height = 1n; height <= 4n; height++) {
        if ((height % 2n === 1n) !== isNodeFirst) {
          await importBlock(chain, await sealedEmpty(chain, OTHER_KEY, turn(height, OTHER_ADDRESS)), { setHead: true })
          continue
        }
        const block = (await sealer.sealBlock(true))!
        expect(block.header.difficulty).toBe(turn(height, NODE_ADDRESS))
        nodeDifficulties.add(block.header.difficulty)
        // With two signers one may seal only one block of any two in a row.
        await expect(sealer.sealBlock(true)).rejects.toThrow('sealed one of the last 1 blocks')
      }
      const checkpoint = (await chain.getBlockByNumber(3n))!.header.extraData
      expect(bytesToHex(checkpoint.subarray(32, 72))).toBe(`${sorted[0]}${sorted[1].slice(2)}` as `0x${string}`)
    }
    expect([...nodeDifficulties].sort()).toEqual([1n, 2n])
  })

  it('imports only blocks sealed by a signer with the difficulty of its turn, one block in a row each', async () => {
    const replica = await openMemoryChain(cliqueGenesis([OTHER_ADDRESS, NODE_ADDRESS]))
    const sorted = [OTHER_ADDRESS, NODE_ADDRESS].sort()
    const [first, firstKey] = sorted[1] === NODE_ADDRESS ? [NODE_ADDRESS, NODE_KEY] : [OTHER_ADDRESS, OTHER_KEY]
    const seal = (key: Uint8Array, difficulty: bigint) => sealedEmpty(replica, key, difficulty)
    await expect(importBlock(replica, await seal(SENDER_KEY, 1n), { setHead: true })).rejects.toThrow(
      `invalid clique seal: ${SENDER} is not a signer`,
    )
    // Height 1 is the turn of sorted[1]: difficulty 1 is wrong for it, 2 right.
    await expect(importBlock(replica, await seal(firstKey, 1n), { setHead: true })).rejects.toThrow(
      `invalid difficulty: 1, the signer ${first} is in turn (expected 2)`,
    )
    await importBlock(replica, await seal(firstKey, 2n), { setHead: true })
    await expect(importBlock(replica, await seal(firstKey, 1n), { setHead: true })).rejects.toThrow(
      `invalid clique seal: ${first} signed one of the last 1 blocks`,
    )
    const otherKey = firstKey === NODE_KEY ? OTHER_KEY : NODE_KEY
    await expect(importBlock(replica, await seal(otherKey, 1n), { setHead: true })).rejects.toThrow('is in turn')
    await importBlock(replica, await seal(otherKey, 2n), { setHead: true })
    expect(replica.head.header.number).toBe(2n)
  })

  it("votes a proposal into its block; the signer list grows at once and the new signer's blocks import", async () => {
    const genesis = cliqueGenesis([NODE_ADDRESS], { clique: { blockperiodseconds: 4, epochlength: 4 } })
    const chain = await openMemoryChain(genesis)
    const proposals = new Map([[OTHER_ADDRESS, true]])
    const { sealer } = await openSealer(chain, proposals)
    const one = (await sealer.sealBlock(true))!
    expect(one.header.coinbase.toString()).toBe(OTHER_ADDRESS)
    expect(bytesToHex(one.header.nonce)).toBe('0xffffffffffffffff')
    const sorted = [OTHER_ADDRESS, NODE_ADDRESS].sort()
    expect(cliqueTallyAfter(chain, (await chain.getBlockByNumber(1n))!.header).signers()).toEqual(sorted)
    // Two signers now: the node sealed block 1, so block 2 is the other signer's.
    await expect(sealer.sealBlock(true)).rejects.toThrow('sealed one of the last 1 blocks')
    const turn = (height: bigint, who: string) => (sorted[Number(height % 2n)] === who ? 2n : 1n)
    const two = await sealedEmpty(chain, OTHER_KEY, turn(2n, OTHER_ADDRESS))
    await importBlock(chain, two, { setHead: true })
    // The proposal passed: the node's next block carries no vote.
    const three = (await sealer.sealBlock(true))!
    expect(three.header.coinbase.toString()).toBe(`0x${'00'.repeat(20)}`)
    expect(three.header.difficulty).toBe(turn(3n, NODE_ADDRESS))
    // Block 4 is a checkpoint: it lists both signers, and carries no vote.
    const voting = await sealedEmpty(chain, OTHER_KEY, turn(4n, OTHER_ADDRESS), {
      coinbase: SENDER,
      nonce: `0x${'ff'.repeat(8)}`,
    })
    await expect(importBlock(chain, voting, { setHead: true })).rejects.toThrow(
      'invalid checkpoint: its coinbase must be zero',
    )
    const four = await sealedEmpty(chain, OTHER_KEY, turn(4n, OTHER_ADDRESS))
    expect(bytesToHex(four.header.extraData.subarray(32, 72))).toBe(
      `${sorted[0]}${sorted[1].slice(2)}` as `0x${string}`,
    )
    await importBlock(chain, four, { setHead: true })

    // A node that knows only the genesis imports the chain: block 2 is valid because of block 1's vote.
    const replica = await openMemoryChain(genesis)
    for (let n = 1n; n <= 4n; n++) await importBlock(replica, (await chain.getBlockByNumber(n))!, { setHead: true })
    expect(bytesToHex(replica.head.hash())).toBe(bytesToHex(chain.head.hash()))
    // Without the vote, the other key's block 2 is refused.
    const plain = await openMemoryChain(genesis)
    const { sealer: plainSealer } = await openSealer(plain)
    await plainSealer.sealBlock(true)
    await expect(importBlock(plain, await sealedEmpty(plain, OTHER_KEY, 1n), { setHead: true })).rejects.toThrow(
      `invalid clique seal: ${OTHER_ADDRESS} is not a signer`,
    )
  })

  it('checks a side-chain block against its own ancestors, not the canonical blocks of the same height', async () => {
    const genesis = cliqueGenesis([NODE_ADDRESS], { clique: { blockperiodseconds: 4, epochlength: 30 } })
    // Branch A: block 1 votes the other signer in. Branch B: block 1 carries no vote.
    const voting = await openMemoryChain(genesis)
    const { sealer: votingSealer } = await openSealer(voting, new Map([[OTHER_ADDRESS, true]]))
    const votedOne = (await votingSealer.sealBlock(true))!
    const sorted = [OTHER_ADDRESS, NODE_ADDRESS].sort()
    const otherTwo = await sealedEmpty(voting, OTHER_KEY, sorted[0] === OTHER_ADDRESS ? 2n : 1n)
    const chain = await openMemoryChain(genesis)
    const { sealer } = await openSealer(chain)
    await sealer.sealBlock(true)
    expect(bytesToHex(chain.head.hash())).not.toBe(bytesToHex(votedOne.hash()))
    // Branch A's blocks arrive after B's block 1 is canonical: A's block 2 is sealed by a signer of A.
    await importBlock(chain, votedOne, { setHead: false })
    await importBlock(chain, otherTwo, { setHead: true })
    expect(bytesToHex(chain.head.hash())).toBe(bytesToHex(otherTwo.hash()))
    expect(cliqueTallyAfter(chain, chain.head.header).signers()).toEqual(sorted)
  })

  it('drops a signer by vote, and votes do not outlive the epoch', async () => {
    const genesis = cliqueGenesis([NODE_ADDRESS, OTHER_ADDRESS], { clique: { blockperiodseconds: 4, epochlength: 4 } })
    const sorted = [OTHER_ADDRESS, NODE_ADDRESS].sort()
    const turn = (height: bigint, who: string) => (sorted[Number(height % 2n)] === who ? 2n : 1n)
    const chain = await openMemoryChain(genesis)
    // The node votes to drop the other signer: 1 of 2 votes, not enough alone.
    const { sealer } = await openSealer(chain, new Map([[OTHER_ADDRESS, false]]))
    const one = (await sealer.sealBlock(true))!
    expect(bytesToHex(one.header.nonce)).toBe('0x0000000000000000')
    expect(cliqueTallyAfter(chain, (await chain.getBlockByNumber(1n))!.header).signers()).toEqual(sorted)
    await importBlock(chain, await sealedEmpty(chain, OTHER_KEY, turn(2n, OTHER_ADDRESS)), { setHead: true })
    // Block 3: the node has cast that vote already in this epoch: no vote again.
    const three = (await sealer.sealBlock(true))!
    expect(three.header.coinbase.toString()).toBe(`0x${'00'.repeat(20)}`)
    await importBlock(chain, await sealedEmpty(chain, OTHER_KEY, turn(4n, OTHER_ADDRESS)), { setHead: true })
    // After the checkpoint (block 4) the tally starts afresh and the node votes again.
    const five = (await sealer.sealBlock(true))!
    expect(five.header.coinbase.toString()).toBe(OTHER_ADDRESS)
    const tally = cliqueTallyAfter(chain, chain.head.header)
    expect(tally.hasVoted(NODE_ADDRESS, OTHER_ADDRESS, false)).toBe(true)
    expect(tally.signers()).toEqual(sorted)
  })

  it('refuses to seal when the node key is not a signer', async () => {
    const chain = await openMemoryChain(cliqueGenesis([OTHER_ADDRESS]))
    const { sealer } = await openSealer(chain)
    await expect(sealer.sealBlock(true)).rejects.toThrow(
      `the node key's address ${NODE_ADDRESS} is not a clique signer`,
    )
  })

  it('stops clique at the terminal total difficulty: the next blocks are proof of stake', async () => {
    const chain = await openMemoryChain(cliqueGenesis([NODE_ADDRESS], { terminalTotalDifficulty: 5 }))
    const { sealer } = await openSealer(chain)
    const blocks = []
    for (let i = 0; i < 4; i++) blocks.push((await sealer.sealBlock(true))!)
    // Total difficulty 1, 3, 5: block 3's parent reached the TTD.
    expect(blocks.map((b) => b.header.difficulty)).toEqual([2n, 2n, 0n, 0n])
    expect(blocks[2].header.extraData.length).toBe(0)
  })
})

describe('the out-of-turn delay (Besu: CliqueBlockScheduler)', () => {
  it('is 0 in turn and a random 1..⌊(signers/2 + 1) × 500⌋ ms out of turn', () => {
    const three = ['0x01', '0x02', '0x03']
    expect(cliqueOutOfTurnDelayMs(three, 1n, '0x02', () => 0.5)).toBe(0)
    expect([0, 0.5, 0.999999].map((r) => cliqueOutOfTurnDelayMs(three, 1n, '0x01', () => r))).toEqual([1, 626, 1250])
    expect(cliqueOutOfTurnDelayMs(['0x01', '0x02'], 0n, '0x02', () => 0.999999)).toBe(1000)
    expect(cliqueOutOfTurnDelayMs(['0x01', '0x02', '0x03', '0x04'], 0n, '0x02', () => 0.999999)).toBe(1500)
  })

  // Signers sorted: the node (0x17c5…) first, 0xae72… (key 77, in turn at block 1), 0xdb24… (key 66).
  const THIRD_KEY = hexToBytes(`0x${'77'.repeat(32)}`)
  const THREE = [NODE_ADDRESS, OTHER_ADDRESS, bytesToHex(privateToAddress(THIRD_KEY))]

  async function automineSealer(chain: Chain, wait: (ms: number) => Promise<void>) {
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
    const opts = { coinbase: new Uint8Array(20), cliqueKey: NODE_KEY, clock: manualClock(1_700_000_000_000) }
    const sealer = new DevSealer(chain, pool, { ...opts, random: () => 0.5, wait })
    const tx = createLegacyTx(
      { nonce: 0n, to: `0x${'be'.repeat(20)}`, value: 5n, gasLimit: 21_000n, gasPrice: 2n * 10n ** 9n },
      { common: chain.commonForNextBlock() },
    ).sign(SENDER_KEY)
    await pool.add(tx)
    return sealer
  }

  it('makes an out-of-turn signer wait before sealing, then seal with difficulty 1', async () => {
    const chain = await openMemoryChain(cliqueGenesis(THREE))
    const waits: number[] = []
    const sealer = await automineSealer(chain, async (ms) => {
      waits.push(ms)
    })
    sealer.start()
    for (let i = 0; i < 100 && chain.head.header.number === 0n; i++) await sleep(10)
    await sealer.stop()
    expect(waits).toEqual([626])
    expect([chain.head.header.number, chain.head.header.difficulty]).toEqual([1n, 1n])
  })

  it('does not seal on the old head when the in-turn block arrives during the wait', async () => {
    const chain = await openMemoryChain(cliqueGenesis(THREE))
    let inTurn: Awaited<ReturnType<typeof sealedEmpty>> | undefined
    const sealer = await automineSealer(chain, async () => {
      if (inTurn === undefined) {
        inTurn = await sealedEmpty(chain, THIRD_KEY, 2n)
        await importBlock(chain, inTurn, { setHead: true })
      }
    })
    sealer.start()
    for (let i = 0; i < 100 && chain.head.header.number < 2n; i++) await sleep(10)
    await sealer.stop()
    // Block 1 is the in-turn signer's; the node then seals block 2 (its own turn is block 3, so it waited again).
    const one = await chain.getBlockByNumber(1n)
    expect(one && bytesToHex(one.hash())).toBe(inTurn && bytesToHex(inTurn.hash()))
    expect(chain.head.header.number).toBe(2n)
    expect(cliqueSigner(chain.head.header).toString()).toBe(NODE_ADDRESS)
  })
})
