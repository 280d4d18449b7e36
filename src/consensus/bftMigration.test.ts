/**
 * A chain migrating from IBFT 2.0 to QBFT at `qbft.startBlock` (Besu's consensus schedule): blocks
 * below it are IBFT 2.0's (extraData layout, hash, commit seals), blocks from it QBFT's, and the
 * validators the IBFT 2.0 blocks voted in seal the first QBFT block.
 */
import { type BlockHeader, createBlockHeader } from '@ethereumjs/block'
import { createChainCommon, normalizeGenesis } from '../chain/genesis.ts'
import { bytesToHex, type Hex } from '../primitives/hex.ts'
import { signHash } from '../primitives/nodeKey.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { type BftKind, type BftVote, decodeBftExtraData, encodeBftExtraData, genesisExtraData } from './bftExtraData.ts'
import { addressOf, bftBlockHash, commitSealHash, installBftBlockHash } from './bftHashing.ts'
import { bftSealRules, proposalHeaderFields } from './bftHeaderRules.ts'
import { BftSchedule } from './bftSchedule.ts'
import { ValidatorTracker } from './voteTally.ts'

const KEY = new Uint8Array(32).fill(1)
const KEY2 = new Uint8Array(32).fill(2)
const [V1, V2] = [addressOf(KEY), addressOf(KEY2)]
const config = {
  chainId: 1337,
  ibft2: { blockperiodseconds: 2, requesttimeoutseconds: 4, blockreward: '0x5' },
  qbft: { blockperiodseconds: 1, requesttimeoutseconds: 9, startBlock: 3 },
  transitions: {
    ibft2: [
      { block: 2, blockperiodseconds: 3 },
      { block: 5, blockperiodseconds: 7 },
    ],
    qbft: [
      { block: 2, requesttimeoutseconds: 6 },
      { block: 4, blockperiodseconds: 2 },
    ],
  },
}

describe('the IBFT 2.0 to QBFT schedule', () => {
  it('runs IBFT 2.0 below qbft.startBlock and QBFT from it, each with its own section and transitions', () => {
    const s = new BftSchedule('qbft', config)
    expect(s.kind).toBe('ibft2')
    expect(s.migrationBlock).toBe(3n)
    expect(s.kinds).toEqual(['ibft2', 'qbft'])
    expect([0n, 1n, 2n, 3n, 4n, 100n].map((n) => s.kindAt(n))).toEqual([
      'ibft2',
      'ibft2',
      'ibft2',
      'qbft',
      'qbft',
      'qbft',
    ])
    expect(s.at(1n)).toMatchObject({ blockPeriodSeconds: 2, requestTimeoutSeconds: 4, blockReward: 5n })
    expect(s.at(2n)).toMatchObject({ kind: 'ibft2', blockPeriodSeconds: 3 })
    // QBFT's own section from the start block (no IBFT 2.0 reward), with its transition at block 2
    // folded in; IBFT 2.0's transition at block 5 is past its last block and rules nothing.
    expect(s.at(3n)).toMatchObject({ kind: 'qbft', blockPeriodSeconds: 1, requestTimeoutSeconds: 6, blockReward: 0n })
    expect(s.at(4n)).toMatchObject({ kind: 'qbft', blockPeriodSeconds: 2, requestTimeoutSeconds: 6 })
    expect(s.at(9n).blockPeriodSeconds).toBe(2)
  })

  it("takes QBFT's validator contract from the start block, IBFT 2.0's blocks keeping header validators", () => {
    const contract = '0x0000000000000000000000000000000000008888'
    const s = new BftSchedule('ibft2', {
      ibft2: {},
      qbft: { startBlock: 10, validatorselectionmode: 'contract', validatorcontractaddress: contract },
    })
    expect(s.at(9n).selection).toEqual({ mode: 'blockheader' })
    const at10 = s.at(10n).selection
    expect(at10.mode === 'contract' && bytesToHex(at10.address)).toBe(contract)
    expect(s.hasContractValidators).toBe(true)
  })

  it('is a single protocol without both sections, whatever startBlock says', () => {
    const s = new BftSchedule('qbft', { qbft: { startBlock: 5 } })
    expect([s.migrationBlock, s.kind, s.kindAt(9n), s.kinds]).toEqual([undefined, 'qbft', 'qbft', ['qbft']])
  })
})

/** A sealed block on `parent` of the protocol its number has, proposed by V1, sealed by `keys`. */
function block(parent: BlockHeader, kind: BftKind, validators: Uint8Array[], keys: Uint8Array[], vote?: BftVote) {
  const common = parent.common
  const fields = proposalHeaderFields({ kind, round: 0, proposer: V1, validators, vote })
  const base = { ...fields, number: parent.number + 1n, parentHash: parent.hash(), timestamp: parent.timestamp + 3n }
  const unsealed = createBlockHeader(base, { common })
  const seals = keys.map((k) => signHash(commitSealHash(kind, unsealed), k))
  const extra = encodeBftExtraData(kind, { ...decodeBftExtraData(kind, unsealed.extraData), seals })
  return createBlockHeader({ ...base, extraData: extra }, { common })
}

describe('a chain across the migration block', () => {
  const schedule = new BftSchedule('ibft2', config)
  const common = createChainCommon(normalizeGenesis({ config }), {})
  installBftBlockHash(common, (n) => schedule.kindAt(n))
  const headers = new Map<Hex, BlockHeader>()
  const source = { getHeaderByHash: (h: Uint8Array) => headers.get(bytesToHex(h)) }
  const tracker = new ValidatorTracker((n) => schedule.kindAt(n), 30_000n, source)
  const rules = bftSealRules((n) => schedule.at(n), tracker)
  const genesis = createBlockHeader({ extraData: genesisExtraData('ibft2', [V1]), timestamp: 100n }, { common })
  const add = (h: BlockHeader) => headers.set(bytesToHex(h.hash()), h)
  add(genesis)

  it('takes IBFT 2.0 blocks below the start block and QBFT ones from it, with the validators voted in before', () => {
    // Block 1 (IBFT 2.0) votes V2 in: V1 is the only validator, so the vote passes at once.
    const b1 = block(genesis, 'ibft2', [V1], [KEY], { recipient: V2, isAuth: true })
    rules.validate(b1, genesis)
    add(b1)
    const both = [V1, V2].sort((a, b) => Buffer.compare(a, b))
    expect(tracker.validatorsAfter(b1).map(bytesToHex)).toEqual(both.map(bytesToHex))
    const b2 = block(b1, 'ibft2', both, [KEY, KEY2])
    rules.validate(b2, b1)
    add(b2)
    // Block 3 is the first QBFT block: QBFT's layout, sealed by the two validators IBFT 2.0 left.
    const b3 = block(b2, 'qbft', both, [KEY, KEY2])
    rules.validate(b3, b2)
    add(b3)
    expect(decodeBftExtraData('qbft', b3.extraData).validators.map(bytesToHex)).toEqual(both.map(bytesToHex))
    expect(bytesToHex(b2.hash())).toBe(bytesToHex(bftBlockHash('ibft2', b2)))
    expect(bytesToHex(b3.hash())).toBe(bytesToHex(bftBlockHash('qbft', b3)))
    const b4 = block(b3, 'qbft', both, [KEY, KEY2])
    rules.validate(b4, b3)
  })

  it("refuses a block in the other protocol's layout on either side of the start block", () => {
    const b1 = block(genesis, 'qbft', [V1], [KEY])
    expect(() => rules.validate(b1, genesis)).toThrow('Invalid IBFT 2.0 extraData')
    const ibft1 = block(genesis, 'ibft2', [V1], [KEY])
    const ibft2 = block(ibft1, 'ibft2', [V1], [KEY])
    add(ibft1)
    add(ibft2)
    expect(() => rules.validate(block(ibft2, 'ibft2', [V1], [KEY]), ibft2)).toThrow('Invalid QBFT extraData')
    expect(() => rules.validate(block(ibft2, 'qbft', [V1], [KEY]), ibft2)).not.toThrow()
  })
})
