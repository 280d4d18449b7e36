import { type BlockHeader, createBlockHeader, type HeaderData } from '@ethereumjs/block'
import { createChainCommon, normalizeGenesis } from '../chain/genesis.ts'
import { signHash } from '../primitives/nodeKey.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { decodeBftExtraData, encodeBftExtraData } from './bftExtraData.ts'
import { addressOf, commitSealHash, installBftBlockHash } from './bftHashing.ts'
import { proposalHeaderFields, validateBftHeader } from './bftHeaderRules.ts'

const KEYS = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i))
const VALIDATORS = KEYS.map(addressOf).sort((a, b) => Buffer.compare(a, b))
const common = createChainCommon(normalizeGenesis({ config: { chainId: 1337, qbft: {} } }), {})
installBftBlockHash(common, 'qbft')
const parentExtra = encodeBftExtraData('qbft', {
  vanity: new Uint8Array(32),
  validators: VALIDATORS,
  round: 0,
  seals: [],
})
const parent = createBlockHeader({ number: 9n, timestamp: 100n, extraData: parentExtra }, { common })
const CHECK = { kind: 'qbft' as const, blockPeriodSeconds: 2, validators: VALIDATORS, requireSeals: true }

/** A header on `parent` proposed by validator 0 and sealed by `sealers`, with `change` applied last. */
function sealed(sealers: Uint8Array[], change: Partial<HeaderData> = {}): BlockHeader {
  const fields = proposalHeaderFields({ kind: 'qbft', round: 1, proposer: VALIDATORS[0], validators: VALIDATORS })
  const base = { ...fields, number: 10n, parentHash: parent.hash(), timestamp: 102n, ...change }
  const unsealed = createBlockHeader(base, { common })
  const extra = decodeBftExtraData('qbft', unsealed.extraData)
  const seals = sealers.map((k) => signHash(commitSealHash('qbft', unsealed), k))
  return createBlockHeader({ ...base, extraData: encodeBftExtraData('qbft', { ...extra, seals }) }, { common })
}

describe('proposalHeaderFields', () => {
  it('puts --miner-extra-data in the vanity, zero-padded on the left (Besu), zeros without it', () => {
    const fields = (vanity?: Uint8Array) =>
      decodeBftExtraData(
        'qbft',
        proposalHeaderFields({ kind: 'qbft', round: 0, proposer: VALIDATORS[0], validators: VALIDATORS, vanity })
          .extraData as Uint8Array,
      ).vanity
    expect(fields(Uint8Array.of(0xab, 0xcd))).toEqual(Uint8Array.from([...new Uint8Array(30), 0xab, 0xcd]))
    expect(fields()).toEqual(new Uint8Array(32))
  })
})

describe('validateBftHeader', () => {
  it('accepts a header sealed by a quorum of the validators', () => {
    expect(() => validateBftHeader(sealed(KEYS.slice(0, 3)), parent, CHECK)).not.toThrow()
    expect(() => validateBftHeader(sealed([]), parent, { ...CHECK, requireSeals: false })).not.toThrow()
  })

  it('names the rule a header breaks', () => {
    const cases: [BlockHeader, string][] = [
      [sealed(KEYS.slice(0, 2)), '2 commit seals, 3 needed'],
      [sealed([KEYS[0], KEYS[1], KEYS[1]]), 'two commit seals by'],
      [sealed([KEYS[0], KEYS[1], new Uint8Array(32).fill(9)]), 'who is not a validator'],
      [sealed(KEYS.slice(0, 3), { difficulty: 2n }), 'invalid difficulty: 2'],
      [sealed(KEYS.slice(0, 3), { mixHash: new Uint8Array(32) }), 'invalid mixHash'],
      [sealed(KEYS.slice(0, 3), { nonce: new Uint8Array(8).fill(1) }), 'invalid nonce'],
      [sealed(KEYS.slice(0, 3), { timestamp: 101n }), 'less than 2s after the parent'],
      [sealed(KEYS.slice(0, 3), { coinbase: new Uint8Array(20).fill(7) }), 'is not a validator'],
      [
        createBlockHeader({ ...sealed([]).toJSON(), extraData: new Uint8Array([0xc0]) }, { common }),
        'Invalid QBFT extraData',
      ],
    ]
    for (const [header, message] of cases) expect(() => validateBftHeader(header, parent, CHECK)).toThrow(message)
    expect(() => validateBftHeader(sealed(KEYS.slice(0, 3)), parent, { ...CHECK, nowSec: 100n })).toThrow(
      'more than 1s ahead of the clock',
    )
    expect(() => validateBftHeader(sealed(KEYS.slice(0, 3)), parent, { ...CHECK, nowSec: 101n })).not.toThrow()
    const fewer = { ...CHECK, validators: VALIDATORS.slice(0, 3) }
    expect(() => validateBftHeader(sealed(KEYS.slice(0, 3)), parent, fewer)).toThrow('differ from the expected')
  })
})
