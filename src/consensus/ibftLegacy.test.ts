/**
 * Legacy IBFT 1.0 blocks (Quorum's Istanbul) as Besu imports them before a chain moves to QBFT. The
 * blocks here are built and signed by the test itself, their extraData and hashes written out from
 * the layout (32 raw vanity bytes, then RLP [validators, proposer seal, committed seals]), not with
 * the module's own encoder.
 */
import { type BlockHeader, createBlockHeader } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { createChainCommon, normalizeGenesis } from '../chain/genesis.ts'
import { bytesToHex, type Hex } from '../primitives/hex.ts'
import { signHash } from '../primitives/nodeKey.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { addressOf } from './bftHashing.ts'
import { BFT_MIX_HASH } from './bftRules.ts'
import { BftSchedule } from './bftSchedule.ts'
import {
  decodeLegacyExtraData,
  legacyBlockHash,
  legacyProposerOf,
  legacyQuorum,
  validateLegacyHeader,
} from './ibftLegacy.ts'
import { ValidatorTracker } from './voteTally.ts'

const KEYS = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i))
const ADDRS = KEYS.map(addressOf)
const sorted = (list: Uint8Array[]) => [...list].sort((a, b) => Buffer.compare(a, b))
const VANITY = new Uint8Array(32).fill(0xaa)
const ADD = new Uint8Array(8).fill(0xff)
const config = { chainId: 10, ibft: { blockperiodseconds: 1, epochlength: 30000 }, qbft: { startBlock: 5 } }
const common = createChainCommon(normalizeGenesis({ config }), {})

/** Vanity ‖ RLP([validators, seal, seals]), written out here. */
function extra(validators: Uint8Array[], seal: Uint8Array, seals: Uint8Array[]): Uint8Array {
  return new Uint8Array([...VANITY, ...RLP.encode([validators, seal, seals])])
}

function headerWith(base: Record<string, unknown>, extraData: Uint8Array): BlockHeader {
  return createBlockHeader({ ...base, extraData }, { common })
}

/** keccak of the header's RLP with `extraData` swapped in. */
function hashOf(h: BlockHeader, extraData: Uint8Array): Uint8Array {
  const raw = h.raw()
  raw[12] = extraData
  return keccak_256(RLP.encode(raw))
}

/**
 * A sealed legacy block on `parent`: `proposer` signs keccak(keccak(header without seals)), then each
 * of `committers` signs keccak(hash ‖ 0x02), the hash being the header with the proposer seal only.
 */
function legacyBlock(
  parent: BlockHeader,
  validators: Uint8Array[],
  proposer: Uint8Array,
  committers: Uint8Array[],
  vote?: { candidate: Uint8Array; nonce: Uint8Array },
): BlockHeader {
  const base = {
    number: parent.number + 1n,
    parentHash: parent.hash(),
    timestamp: parent.timestamp + 1n,
    gasLimit: parent.gasLimit,
    difficulty: 1n,
    mixHash: BFT_MIX_HASH,
    coinbase: vote?.candidate ?? new Uint8Array(20),
    nonce: vote?.nonce ?? new Uint8Array(8),
  }
  const bare = headerWith(base, extra(validators, new Uint8Array(0), []))
  const proposerSeal = signHash(keccak_256(hashOf(bare, extra(validators, new Uint8Array(0), []))), proposer)
  const withSeal = extra(validators, proposerSeal, [])
  const commitHash = keccak_256(new Uint8Array([...hashOf(bare, withSeal), 0x02]))
  const seals = committers.map((k) => signHash(commitHash, k))
  return headerWith(base, extra(validators, proposerSeal, seals))
}

describe('legacy IBFT 1.0 extraData', () => {
  it('reads the raw vanity, the validators, the proposer seal and the committed seals', () => {
    const seal = new Uint8Array(65).fill(7)
    const d = decodeLegacyExtraData(extra(ADDRS.slice(0, 2), seal, [seal, seal]))
    expect(bytesToHex(d.vanity)).toBe(bytesToHex(VANITY))
    expect(d.validators.map(bytesToHex)).toEqual(ADDRS.slice(0, 2).map(bytesToHex))
    expect(d.proposerSeal && bytesToHex(d.proposerSeal)).toBe(bytesToHex(seal))
    expect(d.seals.length).toBe(2)
    // Besu reads an all-zero proposer seal as none.
    expect(decodeLegacyExtraData(extra([], new Uint8Array(65), [])).proposerSeal).toBeUndefined()
  })

  it('refuses what Besu cannot decode, naming the field', () => {
    expect(() => decodeLegacyExtraData(VANITY)).toThrow('too short to produce a valid IBFT Extra Data object')
    const twoFields = new Uint8Array([...VANITY, ...RLP.encode([[], new Uint8Array(0)])])
    expect(() => decodeLegacyExtraData(twoFields)).toThrow('expected 3 fields after the vanity, found 2')
    expect(() => decodeLegacyExtraData(extra([new Uint8Array(19)], new Uint8Array(0), []))).toThrow(
      'validator 0 is not 20 bytes',
    )
    // An IBFT 2.0 extraData (the vanity an RLP item) is no legacy one.
    const ibft2 = RLP.encode([VANITY, [ADDRS[0]], new Uint8Array(0), new Uint8Array(4), []])
    expect(() => decodeLegacyExtraData(ibft2)).toThrow('Invalid IBFT 1.0 extraData')
  })

  it("needs Istanbul's 2F + 1 committed seals below ceil2Nby3Block and ceil(2n/3) from it", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => legacyQuorum(n, 0n, 1n))).toEqual([1, 1, 1, 3, 3, 3, 5])
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => legacyQuorum(n, 1n, 1n))).toEqual([1, 2, 2, 3, 4, 4, 5])
  })
})

describe('a legacy IBFT 1.0 chain moving to QBFT', () => {
  const schedule = new BftSchedule('qbft', config)
  const headers = new Map<Hex, BlockHeader>()
  const source = { getHeaderByHash: (h: Uint8Array) => headers.get(bytesToHex(h)) }
  const tracker = new ValidatorTracker((n) => schedule.formatAt(n), 30_000n, source)
  const validatorsAfter = (h: BlockHeader) => tracker.validatorsAfter(h)
  const check = (h: BlockHeader, parent: BlockHeader) =>
    validateLegacyHeader(h, parent, {
      blockPeriodSeconds: 1,
      ceil2Nby3Block: 0n,
      validators: validatorsAfter(parent),
    })
  const genesisValidators = sorted(ADDRS.slice(0, 1))
  const genesis = headerWith(
    { timestamp: 100n, gasLimit: 8_000_000n, difficulty: 1n, mixHash: BFT_MIX_HASH },
    extra(genesisValidators, new Uint8Array(0), []),
  )
  headers.set(bytesToHex(genesis.hash()), genesis)

  it('schedules IBFT 1.0 blocks below qbft.startBlock and QBFT from it, deciding none of the former', () => {
    expect([schedule.isLegacyIbft, schedule.migrationBlock, schedule.kinds]).toEqual([true, 5n, ['qbft']])
    expect([0n, 4n, 5n].map((n) => schedule.formatAt(n))).toEqual(['ibft', 'ibft', 'qbft'])
    expect(schedule.at(1n).blockPeriodSeconds).toBe(1)
  })

  it('names a block by its header without committed seals and recovers its proposer from the proposer seal', () => {
    const b1 = legacyBlock(genesis, genesisValidators, KEYS[0], [KEYS[0]])
    const d = decodeLegacyExtraData(b1.extraData)
    const withoutSeals = new Uint8Array([...VANITY, ...RLP.encode([genesisValidators, d.proposerSeal!, []])])
    expect(bytesToHex(legacyBlockHash(b1))).toBe(bytesToHex(hashOf(b1, withoutSeals)))
    expect(bytesToHex(legacyProposerOf(b1))).toBe(bytesToHex(ADDRS[0]))
  })

  it('validates the headers, counting votes carried by coinbase and nonce', () => {
    // Block 1: V0 proposes and votes V1 in (coinbase V1, nonce all ones); alone, its vote passes.
    const b1 = legacyBlock(genesis, genesisValidators, KEYS[0], [KEYS[0]], { candidate: ADDRS[1], nonce: ADD })
    check(b1, genesis)
    headers.set(bytesToHex(legacyBlockHash(b1)), b1)
    const two = sorted(ADDRS.slice(0, 2))
    expect(validatorsAfter(b1).map(bytesToHex)).toEqual(two.map(bytesToHex))
    // Block 2 needs ceil(2 * 2 / 3) = 2 committed seals from the two.
    const b2 = legacyBlock(b1, two, KEYS[1], [KEYS[0], KEYS[1]])
    check(b2, b1)
    expect(() => check(legacyBlock(b1, two, KEYS[1], [KEYS[0]]), b1)).toThrow('1 committed seals, 2 needed')
    expect(() => check(legacyBlock(b1, two, KEYS[2], [KEYS[0], KEYS[1]]), b1)).toThrow('is not a validator')
    expect(() => check(legacyBlock(b1, two, KEYS[0], [KEYS[0], KEYS[2]]), b1)).toThrow(
      `committed seal by ${bytesToHex(ADDRS[2])}, who is not a validator`,
    )
    expect(() => check(legacyBlock(b1, genesisValidators, KEYS[0], [KEYS[0], KEYS[1]]), b1)).toThrow('differ from')
    const badNonce = legacyBlock(b1, two, KEYS[0], [KEYS[0], KEYS[1]], {
      candidate: ADDRS[3],
      nonce: new Uint8Array(8).fill(1),
    })
    expect(() => check(badNonce, b1)).toThrow('invalid nonce')
  })
})
