import { KECCAK256_RLP } from '@ethereumjs/util'
import { createChainCommon, createGenesisBlock, normalizeGenesis } from '../../chain/genesis.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { describe, expect, it, setDefaultTimeout } from '../../runtime/testing.ts'
import { type BftKind, decodeBftExtraData, genesisExtraData } from '../bftExtraData.ts'
import { addressOf, installBftBlockHash } from '../bftHashing.ts'
import { COMMIT } from './messages.ts'
import { SimNetwork } from './simNetwork.ts'

// A simulated minute takes a few seconds of real time on a busy machine.
setDefaultTimeout(60_000)

const KEYS = [1, 2, 3, 4, 5].map((i) => new Uint8Array(32).fill(i))
const ADDRESSES = KEYS.map(addressOf)
const START_MS = 1_700_000_000_000

function network(kind: BftKind, validatorCount: number, nodeCount = validatorCount): SimNetwork {
  const genesisJson = normalizeGenesis({
    config: { chainId: 1337, [kind]: { blockperiodseconds: 2, requesttimeoutseconds: 4 } },
    extraData: bytesToHex(genesisExtraData(kind, ADDRESSES.slice(0, validatorCount))),
    timestamp: `0x${(START_MS / 1000).toString(16)}`,
  })
  const common = createChainCommon(genesisJson, {})
  installBftBlockHash(common, kind)
  const genesis = createGenesisBlock(common, KECCAK256_RLP)
  const net = new SimNetwork({
    kind,
    common,
    genesis,
    keys: KEYS.slice(0, nodeCount),
    blockPeriodSeconds: 2,
    requestTimeoutSeconds: 4,
    epochLength: 30_000n,
    startMs: START_MS,
  })
  net.start()
  return net
}

const heights = (net: SimNetwork) => net.nodes.map((n) => Number(n.head.header.number))

/** Every pair of nodes agrees on the hash of every block both have. */
function expectAgreement(net: SimNetwork): void {
  for (const a of net.nodes) {
    for (const b of net.nodes) {
      const common = Math.min(a.byNumber.length, b.byNumber.length)
      for (let i = 0; i < common; i++) expect(bytesToHex(a.byNumber[i].hash())).toBe(bytesToHex(b.byNumber[i].hash()))
    }
  }
}

const roundOf = (net: SimNetwork, n: number) =>
  decodeBftExtraData(net.opts.kind, net.nodes[0].byNumber[n].header.extraData).round

describe.each(['qbft', 'ibft2'] as const)('%s network of 4 validators on a fake clock', (kind) => {
  it('produces a block every block period, agreed by all, each sealed by a quorum', () => {
    const net = network(kind, 4)
    net.run(10_500)
    expect(heights(net)).toEqual([5, 5, 5, 5])
    expectAgreement(net)
    const proposers = net.nodes[0].byNumber.slice(1).map((b) => bytesToHex(b.header.coinbase.bytes))
    expect(new Set(proposers).size).toBe(4)
    for (const b of net.nodes[0].byNumber.slice(1)) {
      expect(decodeBftExtraData(kind, b.header.extraData).seals.length).toBeGreaterThanOrEqual(3)
      expect(b.header.timestamp - net.nodes[0].byNumber[Number(b.header.number) - 1].header.timestamp).toBe(2n)
    }
  })

  it('goes on without a dropped validator, changing round when it was the proposer', () => {
    const net = network(kind, 4)
    net.run(4_500)
    net.nodes[3].isUp = false
    net.run(60_000)
    const live = heights(net).slice(0, 3)
    expect(live[0]).toBeGreaterThanOrEqual(10)
    expect(new Set(live).size).toBe(1)
    expectAgreement(net)
    const rounds = net.nodes[0].byNumber.slice(3).map((_, i) => roundOf(net, i + 3))
    expect(rounds.some((r) => r > 0)).toBe(true)
    // The dropped validator catches up when it returns, with the same hashes.
    net.nodes[3].isUp = true
    net.run(10_000)
    expect(net.nodes[3].head.header.number).toBeGreaterThanOrEqual(net.nodes[0].head.header.number - 1n)
    expectAgreement(net)
  })

  it('halts while split 2|2 and resumes when the partition heals', () => {
    const net = network(kind, 4)
    net.run(4_500)
    const before = Math.max(...heights(net))
    net.partition([0, 1], [2, 3])
    net.run(30_000)
    expect(Math.max(...heights(net))).toBe(before)
    net.heal()
    net.run(120_000)
    expect(Math.min(...heights(net))).toBeGreaterThan(before + 2)
    expectAgreement(net)
  })

  it('adds a validator on a majority of votes, then removes it again', () => {
    const net = network(kind, 4, 5)
    const newcomer = ADDRESSES[4]
    for (const n of net.nodes.slice(0, 3)) n.vote = { recipient: newcomer, isAuth: true }
    net.run(20_000)
    const head = () => net.nodes[0].head.header
    const validatorsNow = () => net.nodes[0].tracker.validatorsAfter(head()).map(bytesToHex)
    expect(validatorsNow()).toContain(bytesToHex(newcomer))
    expect(validatorsNow()).toHaveLength(5)
    // The newcomer now seals blocks too.
    for (const n of net.nodes.slice(0, 3)) n.vote = undefined
    net.run(20_000)
    const sealedByNewcomer = net.nodes[0].byNumber.some(
      (b) => bytesToHex(b.header.coinbase.bytes) === bytesToHex(newcomer),
    )
    expect(sealedByNewcomer).toBe(true)
    for (const n of net.nodes.slice(0, 3)) n.vote = { recipient: newcomer, isAuth: false }
    net.run(30_000)
    expect(validatorsNow()).toHaveLength(4)
    expect(validatorsNow()).not.toContain(bytesToHex(newcomer))
    expectAgreement(net)
  })
})

describe.each(['qbft', 'ibft2'] as const)('%s round change with a prepared block', (kind) => {
  it('re-proposes the block prepared in round 0 in round 1, by the round-1 proposer, and commits it', () => {
    const net = network(kind, 4)
    // Every commit of height 1 is lost: round 0 ends prepared but not committed.
    net.dropIf = (code) => code === COMMIT && net.nodes[0].machine.height === 1n
    net.run(2_100)
    expect(heights(net)).toEqual([0, 0, 0, 0])
    net.dropIf = () => false
    net.run(15_000)
    expect(Math.min(...heights(net))).toBeGreaterThanOrEqual(1)
    expectAgreement(net)
    const block1 = net.nodes[0].byNumber[1]
    const extra = decodeBftExtraData(kind, block1.header.extraData)
    expect(extra.round).toBe(1)
    // QBFT recasts the block for round 1's proposer, the one after round 0's (the first validator
    // after the zero address); IBFT 2.0 changes only the round, so the block keeps round 0's proposer.
    const sorted = ADDRESSES.slice(0, 4).map(bytesToHex).sort()
    expect(bytesToHex(block1.header.coinbase.bytes)).toBe(kind === 'qbft' ? sorted[1] : sorted[0])
    // The same block as prepared in round 0: its timestamp is round 0's, not a fresh one.
    expect(block1.header.timestamp).toBe(BigInt(START_MS / 1000) + 2n)
  })
})
