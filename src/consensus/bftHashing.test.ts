import { type BlockHeader, createBlockHeader } from '@ethereumjs/block'
import { Common, Mainnet } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { createChainCommon, normalizeGenesis } from '../chain/genesis.ts'
import { bytesToHex, type Hex } from '../primitives/hex.ts'
import { signHash } from '../primitives/nodeKey.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { type BftKind, encodeBftExtraData } from './bftExtraData.ts'
import { addressOf, bftBlockHash, commitSealHash, installBftBlockHash, recoverAddress } from './bftHashing.ts'

const VALIDATOR = new Uint8Array(20).fill(0xaa)
const VANITY = new Uint8Array(32)
const SEAL = new Uint8Array(65).fill(1)

function bftCommon(kind: BftKind): Common {
  const common = createChainCommon(normalizeGenesis({ config: { chainId: 1337, [kind]: {} } }), {})
  installBftBlockHash(common, kind)
  return common
}

function header(common: Common, kind: BftKind, round: number, seals: Uint8Array[], number = 7n): BlockHeader {
  const extraData = encodeBftExtraData(kind, { vanity: VANITY, validators: [VALIDATOR], round, seals })
  return createBlockHeader({ number, extraData, coinbase: VALIDATOR, difficulty: 1n, timestamp: 99n }, { common })
}

/** keccak of the header's RLP with extraData replaced by `extraItems`, written out by hand. */
function hashWithExtra(h: BlockHeader, extraItems: unknown[]): Hex {
  const raw = h.raw()
  raw[12] = RLP.encode(extraItems as never)
  return bytesToHex(keccak_256(RLP.encode(raw)))
}

describe('BFT block hashing', () => {
  it('names a QBFT block by its header with round 0 and no seals (empty round scalar, empty seal list)', () => {
    const common = bftCommon('qbft')
    const sealed = header(common, 'qbft', 3, [SEAL])
    const expected = hashWithExtra(sealed, [VANITY, [VALIDATOR], [], new Uint8Array(0), []])
    expect(bytesToHex(bftBlockHash('qbft', sealed))).toBe(expected)
    expect(bytesToHex(sealed.hash())).toBe(expected)
    expect(bytesToHex(header(common, 'qbft', 0, []).hash())).toBe(expected)
  })

  it('signs commit seals over the header with its round and without seals', () => {
    const common = bftCommon('qbft')
    const sealed = header(common, 'qbft', 3, [SEAL])
    expect(bytesToHex(commitSealHash('qbft', sealed))).toBe(
      hashWithExtra(sealed, [VANITY, [VALIDATOR], [], Uint8Array.of(3), []]),
    )
    const key = new Uint8Array(32).fill(5)
    const seal = signHash(commitSealHash('qbft', sealed), key)
    expect(bytesToHex(recoverAddress(commitSealHash('qbft', sealed), seal)!)).toBe(bytesToHex(addressOf(key)))
  })

  it('drops the round and seal fields of an IBFT 2.0 extraData for the block hash, keeps the 4-byte round for seals', () => {
    const common = bftCommon('ibft2')
    const sealed = header(common, 'ibft2', 2, [SEAL])
    expect(bytesToHex(sealed.hash())).toBe(hashWithExtra(sealed, [VANITY, [VALIDATOR], new Uint8Array(0)]))
    expect(bytesToHex(commitSealHash('ibft2', sealed))).toBe(
      hashWithExtra(sealed, [VANITY, [VALIDATOR], new Uint8Array(0), Uint8Array.of(0, 0, 0, 2)]),
    )
  })

  it('hashes the genesis header as it stands, and leaves other chains alone', () => {
    const common = bftCommon('qbft')
    const genesis = header(common, 'qbft', 0, [], 0n)
    expect(bytesToHex(genesis.hash())).toBe(bytesToHex(keccak_256(RLP.encode(genesis.raw()))))
    const plain = createBlockHeader(
      { number: 7n, extraData: new Uint8Array(3) },
      { common: new Common({ chain: Mainnet }) },
    )
    expect(bytesToHex(plain.hash())).toBe(bytesToHex(keccak_256(RLP.encode(plain.raw()))))
  })
})
