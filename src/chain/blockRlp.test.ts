import { createBlockHeader } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { encodeBftExtraData } from '../consensus/bftExtraData.ts'
import { bftBlockHash, installBftBlockHash } from '../consensus/bftHashing.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { headerHashOf } from './blockRlp.ts'
import { createChainCommon, normalizeGenesis } from './genesis.ts'

describe('headerHashOf', () => {
  it('names a header by keccak of its RLP on an ordinary chain', () => {
    const common = createChainCommon(normalizeGenesis({ config: { chainId: 1337 } }), {})
    const raw = createBlockHeader({ number: 3n, gasLimit: 30_000_000n }, { common }).raw()
    expect(bytesToHex(headerHashOf({ common }, raw))).toBe(bytesToHex(keccak_256(RLP.encode(raw))))
  })

  it('names a sealed QBFT header by its BFT hash (round 0, no seals), as the chain stores it', () => {
    const common = createChainCommon(normalizeGenesis({ config: { chainId: 1337, qbft: {} } }), {})
    installBftBlockHash(common, 'qbft')
    const validator = new Uint8Array(20).fill(0xaa)
    const extra = { vanity: new Uint8Array(32), validators: [validator], round: 2, seals: [new Uint8Array(65).fill(1)] }
    const header = createBlockHeader(
      { number: 7n, extraData: encodeBftExtraData('qbft', extra), coinbase: validator, difficulty: 1n },
      { common },
    )
    const hash = headerHashOf({ common }, header.raw())
    expect(bytesToHex(hash)).toBe(bytesToHex(bftBlockHash('qbft', header)))
    expect(bytesToHex(hash)).not.toBe(bytesToHex(keccak_256(RLP.encode(header.raw()))))
  })
})
