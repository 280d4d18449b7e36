/**
 * Clique blocks sealed by the node key (Besu's `--miner-enabled` on a clique network): in-turn
 * difficulty 2 and out-of-turn 1, 97-byte extraData with the seal, checkpoints listing the signers,
 * the block period, fees to the signer, and blocks a second node imports under clique's rules.
 */
import { describe, expect, it } from 'bun:test'
import { cliqueSigner, createSealedCliqueBlock } from '@ethereumjs/block'
import { createLegacyTx } from '@ethereumjs/tx'
import { Address, privateToAddress } from '@ethereumjs/util'
import { importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { normalizeGenesis } from '../chain/genesis.ts'
import { openMemoryChain } from '../chain/memoryChain.ts'
import { poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { TxPool } from '../txpool/txPool.ts'
import { DevSealer } from './devSealer.ts'

const NODE_KEY = hexToBytes(`0x${'42'.repeat(32)}`)
const NODE_ADDRESS = bytesToHex(privateToAddress(NODE_KEY))
const SENDER_KEY = hexToBytes(`0x${'07'.repeat(32)}`)
const SENDER = bytesToHex(privateToAddress(SENDER_KEY))
/** A signer ordered before the node's address, so that the node is in turn on odd heights only. */
const OTHER_SIGNER = `0x${'00'.repeat(19)}01`

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

async function openSealer(chain: Chain): Promise<{ sealer: DevSealer; pool: TxPool }> {
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const clock = manualClock(1_700_000_000_000)
  return { sealer: new DevSealer(chain, pool, { coinbase: new Uint8Array(20), cliqueKey: NODE_KEY, clock }), pool }
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

  it('seals out of turn with difficulty 1 on the heights of the other signer', async () => {
    const chain = await openMemoryChain(cliqueGenesis([OTHER_SIGNER, NODE_ADDRESS]))
    const { sealer } = await openSealer(chain)
    const difficulties = []
    for (let i = 0; i < 4; i++) difficulties.push((await sealer.sealBlock(true))!.header.difficulty)
    // Signers sorted: [0x…01, node]; height n is in turn for signers[n % 2].
    expect(difficulties).toEqual([2n, 1n, 2n, 1n])
    const checkpoint = (await chain.getBlockByNumber(3n))!.header.extraData
    expect(bytesToHex(checkpoint.subarray(32, 72))).toBe(`${OTHER_SIGNER}${NODE_ADDRESS.slice(2)}` as `0x${string}`)
  })

  it('imports only blocks sealed by a signer with the difficulty of its turn', async () => {
    const genesis = cliqueGenesis([OTHER_SIGNER, NODE_ADDRESS])
    const replica = await openMemoryChain(genesis)
    /** An empty block on the replica's head, sealed by `key` with `difficulty`. */
    const sealedEmpty = (key: Uint8Array, difficulty: bigint) => {
      const parent = replica.head.header
      const common = replica.commonForNextBlock()
      const header = {
        parentHash: parent.hash(),
        number: parent.number + 1n,
        timestamp: parent.timestamp + 4n,
        gasLimit: parent.gasLimit,
        difficulty,
        extraData: new Uint8Array(97),
        stateRoot: parent.stateRoot,
        baseFeePerGas: parent.calcNextBaseFee(),
      }
      return createSealedCliqueBlock({ header }, key, { common })
    }
    await expect(importBlock(replica, sealedEmpty(SENDER_KEY, 1n), { setHead: true })).rejects.toThrow(
      `invalid clique seal: ${SENDER} is not a signer`,
    )
    // Height 1 is the node's turn: difficulty 1 is wrong, 2 right.
    await expect(importBlock(replica, sealedEmpty(NODE_KEY, 1n), { setHead: true })).rejects.toThrow(
      `invalid difficulty: 1, the signer ${NODE_ADDRESS} is in turn (expected 2)`,
    )
    await importBlock(replica, sealedEmpty(NODE_KEY, 2n), { setHead: true })
    await expect(importBlock(replica, sealedEmpty(NODE_KEY, 2n), { setHead: true })).rejects.toThrow('is out of turn')
    await importBlock(replica, sealedEmpty(NODE_KEY, 1n), { setHead: true })
    expect(replica.head.header.number).toBe(2n)
  })

  it('refuses to seal when the node key is not a signer', async () => {
    const chain = await openMemoryChain(cliqueGenesis([OTHER_SIGNER]))
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
