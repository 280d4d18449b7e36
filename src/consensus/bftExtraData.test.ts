import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, type Hex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import {
  type BftExtraData,
  BftExtraDataError,
  decodeBftExtraData,
  encodeBftExtraData,
  genesisExtraData,
} from './bftExtraData.ts'

const VALIDATORS: Hex[] = ['0xbe068f726a13c8d46c44be6ce9d275600e1735a4', '0x5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193']
const IBFT_VECTOR =
  '0xf853a00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193808400000000c0'
const QBFT_VECTOR =
  '0xf84fa00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193c080c0'

const addresses = VALIDATORS.map(hexToBytes)
const seal = (b: number) => new Uint8Array(65).fill(b)
const full = (): BftExtraData => ({
  vanity: new Uint8Array(32).fill(7),
  validators: addresses,
  vote: { recipient: addresses[1], isAuth: false },
  round: 3,
  seals: [seal(1), seal(2)],
})

describe('genesisExtraData', () => {
  it('matches the IBFT 2.0 reference vector', () => {
    expect(bytesToHex(genesisExtraData('ibft2', addresses))).toBe(IBFT_VECTOR)
  })

  it('matches the QBFT reference vector', () => {
    expect(bytesToHex(genesisExtraData('qbft', addresses))).toBe(QBFT_VECTOR)
  })

  it('keeps the validators in the given order', () => {
    const reversed = decodeBftExtraData('qbft', genesisExtraData('qbft', [...addresses].reverse())).validators
    expect(reversed.map(bytesToHex)).toEqual([...VALIDATORS].reverse())
  })
})

describe('encodeBftExtraData', () => {
  it('writes an IBFT 2.0 drop vote as the byte 0x00 and a QBFT one as an empty string', () => {
    const ibft = RLP.decode(encodeBftExtraData('ibft2', full())) as Uint8Array[][]
    const qbft = RLP.decode(encodeBftExtraData('qbft', full())) as Uint8Array[][]
    expect(bytesToHex(ibft[2][1])).toBe('0x00')
    expect(bytesToHex(qbft[2][1])).toBe('0x')
  })

  it('writes an add vote as 0xff in both layouts', () => {
    const data = { ...full(), vote: { recipient: addresses[0], isAuth: true } }
    for (const kind of ['ibft2', 'qbft'] as const) {
      expect(bytesToHex((RLP.decode(encodeBftExtraData(kind, data)) as Uint8Array[][])[2][1])).toBe('0xff')
    }
  })

  it('leaves out the seals, and then the round, as the encoding asks (IBFT 2.0)', () => {
    expect((RLP.decode(encodeBftExtraData('ibft2', full(), 'excludeCommitSeals')) as unknown[]).length).toBe(4)
    expect((RLP.decode(encodeBftExtraData('ibft2', full(), 'excludeCommitSealsAndRound')) as unknown[]).length).toBe(3)
  })

  it('writes empty seals, and then round 0, in their place (QBFT)', () => {
    const noSeals = RLP.decode(encodeBftExtraData('qbft', full(), 'excludeCommitSeals')) as unknown[]
    const noRound = RLP.decode(encodeBftExtraData('qbft', full(), 'excludeCommitSealsAndRound')) as unknown[]
    expect(noSeals[4]).toEqual([])
    expect(noSeals[3]).toEqual(Uint8Array.of(3))
    expect(noRound[3]).toEqual(new Uint8Array(0))
    expect(noRound[4]).toEqual([])
  })

  it('refuses a validator that is not 20 bytes', () => {
    expect(() => genesisExtraData('qbft', [new Uint8Array(19)])).toThrow('validator 0 is 19 bytes, expected 20')
  })

  it('refuses a negative or fractional round', () => {
    expect(() => encodeBftExtraData('ibft2', { ...full(), round: -1 })).toThrow(BftExtraDataError)
    expect(() => encodeBftExtraData('qbft', { ...full(), round: 1.5 })).toThrow(BftExtraDataError)
  })
})

describe('decodeBftExtraData', () => {
  it('reads the validators of the reference vectors', () => {
    expect(decodeBftExtraData('ibft2', hexToBytes(IBFT_VECTOR)).validators.map(bytesToHex)).toEqual(VALIDATORS)
    expect(decodeBftExtraData('qbft', hexToBytes(QBFT_VECTOR)).validators.map(bytesToHex)).toEqual(VALIDATORS)
  })

  it('returns what was encoded, in both layouts and for both vote types', () => {
    for (const kind of ['ibft2', 'qbft'] as const) {
      for (const isAuth of [true, false]) {
        const data = { ...full(), vote: { recipient: addresses[0], isAuth } }
        expect(decodeBftExtraData(kind, encodeBftExtraData(kind, data))).toEqual(data)
      }
    }
  })

  it('reads a genesis extraData as no vote, round 0 and no seals', () => {
    const data = decodeBftExtraData('qbft', hexToBytes(QBFT_VECTOR))
    expect(data.vote).toBeUndefined()
    expect(data.round).toBe(0)
    expect(data.seals).toEqual([])
  })

  it('refuses an extraData of the other layout', () => {
    expect(() => decodeBftExtraData('qbft', hexToBytes(IBFT_VECTOR))).toThrow('Invalid QBFT extraData')
    expect(() => decodeBftExtraData('ibft2', hexToBytes(QBFT_VECTOR))).toThrow('Invalid IBFT 2.0 extraData')
  })

  it('refuses empty input, bytes that are not RLP, and an RLP string', () => {
    expect(() => decodeBftExtraData('qbft', new Uint8Array(0))).toThrow('extraData: empty')
    expect(() => decodeBftExtraData('qbft', hexToBytes('0xf8ff00'))).toThrow('not valid RLP')
    expect(() => decodeBftExtraData('qbft', hexToBytes('0x8100'))).toThrow(BftExtraDataError)
    expect(() => decodeBftExtraData('qbft', hexToBytes('0x83010203'))).toThrow('not an RLP list')
  })

  it('refuses a list with too few fields', () => {
    expect(() => decodeBftExtraData('ibft2', RLP.encode([new Uint8Array(32), []]))).toThrow(
      'expected 5 fields, found 2',
    )
  })

  it('accepts trailing fields in QBFT and refuses them in IBFT 2.0', () => {
    const items = [new Uint8Array(32), [], [], new Uint8Array(0), [], new Uint8Array(1)]
    expect(decodeBftExtraData('qbft', RLP.encode(items)).validators).toEqual([])
    items[2] = new Uint8Array(0)
    items[3] = new Uint8Array(4)
    expect(() => decodeBftExtraData('ibft2', RLP.encode(items))).toThrow('expected 5 fields, found 6')
  })

  it('refuses a validator that is not 20 bytes', () => {
    const bad = RLP.encode([new Uint8Array(32), [new Uint8Array(21)], [], new Uint8Array(0), []])
    expect(() => decodeBftExtraData('qbft', bad)).toThrow('validator 0 is 21 bytes, expected 20')
  })

  it('refuses an IBFT 2.0 round that is not 4 bytes and a QBFT round with leading zeros', () => {
    const ibft = RLP.encode([new Uint8Array(32), [], new Uint8Array(0), Uint8Array.of(1), []])
    const qbft = RLP.encode([new Uint8Array(32), [], [], Uint8Array.of(0, 1), []])
    expect(() => decodeBftExtraData('ibft2', ibft)).toThrow('round is 1 bytes, expected 4')
    expect(() => decodeBftExtraData('qbft', qbft)).toThrow('leading zeros')
  })

  it('refuses a vote of an unknown type and a seal that is not 65 bytes', () => {
    const vote = RLP.encode([new Uint8Array(32), [], [addresses[0], Uint8Array.of(1)], new Uint8Array(0), []])
    const seals = RLP.encode([new Uint8Array(32), [], [], new Uint8Array(0), [new Uint8Array(64)]])
    expect(() => decodeBftExtraData('qbft', vote)).toThrow('vote type is neither add (0xff) nor drop')
    expect(() => decodeBftExtraData('qbft', seals)).toThrow('seal 0 is 64 bytes, expected 65')
  })
})
