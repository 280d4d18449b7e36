import { type Block, createBlock, createBlockFromBytesArray } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { ecrecover, publicToAddress } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { createChainCommon, normalizeGenesis } from '../../chain/genesis.ts'
import { bytesToHex, concatBytes, hexToBytes } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { encodeBftExtraData } from '../bftExtraData.ts'
import { addressOf, commitSealHash, installBftBlockHash } from '../bftHashing.ts'
import { COMMIT, PREPARE, PROPOSAL, QbftMessageError, ROUND_CHANGE } from '../qbft/messages.ts'
import { ibft2Codec } from './ibftMessages.ts'

/*
 * Vectors written out by hand from the layout of Besu's IBFT 2.0 sources (consensus/ibft:
 * `ConsensusRoundIdentifier.writeTo` = `writeLong(sequence)` + `writeInt(round)`, i.e. 8 and 4
 * fixed bytes inline in the payload list; `SignedData.writeTo` = `[payload, signature]`;
 * `IbftPayload.hashForSignature` = keccak(messageType byte ‖ rlp(payload)); `IbftV2` codes 0–3;
 * `RLPOutput.writeNull` = the empty string 0x80). The expected bytes below are assembled from
 * those rules, not from the codec, and every signer is recovered with an independent ecrecover.
 */
const KEY = new Uint8Array(32).fill(7)
const KEY2 = new Uint8Array(32).fill(8)
const DIGEST = new Uint8Array(32).fill(0x11)
const SEAL = new Uint8Array(65).fill(0x22)
const common = createChainCommon(normalizeGenesis({ config: { chainId: 1337, ibft2: {} } }), {})
installBftBlockHash(common, 'ibft2')
const decodeBlock = (values: unknown) => createBlockFromBytesArray(values as never, { common })
const extraData = encodeBftExtraData('ibft2', {
  vanity: new Uint8Array(32),
  validators: [addressOf(KEY), addressOf(KEY2)],
  round: 0,
  seals: [],
})
const block: Block = createBlock({ header: { number: 5n, extraData, coinbase: addressOf(KEY) } }, { common })
const hex = (b: Uint8Array) => bytesToHex(b).slice(2)

/** The signer of `[payload, signature]` under IBFT code `code`, recovered without the codec. */
function signerOf(ibftCode: number, signedItem: unknown): string {
  const [payload, sig] = signedItem as [unknown, Uint8Array]
  const hash = keccak_256(concatBytes(Uint8Array.of(ibftCode), RLP.encode(payload as never)))
  const pub = ecrecover(hash, BigInt(sig[64]) + 27n, sig.subarray(0, 32), sig.subarray(32, 64))
  return bytesToHex(publicToAddress(pub))
}

describe('IBFT 2.0 message codec (IBF/1)', () => {
  it('writes PREPARE [height as 8 bytes, round as 4 bytes, digest], signed over keccak(0x01 ‖ payload)', () => {
    const signed = ibft2Codec.signPrepare({ height: 1n, round: 0, digest: DIGEST }, KEY)
    const wire = ibft2Codec.encode({ code: PREPARE, signed })
    // payload: 9 + 5 + 33 = 47 bytes of items, so list prefix 0xc0 + 0x2f
    const payload = `ef88000000000000000184${'00'.repeat(4)}a0${'11'.repeat(32)}`
    expect(payload.length / 2).toBe(48)
    const sig = (RLP.decode(wire) as Uint8Array[])[1]
    // wire: list of 48 + 67 (0xb841 and 65 bytes) = 115 (0x73) bytes
    expect(bytesToHex(wire)).toBe(`0xf873${payload}b841${hex(sig)}`)
    expect(signerOf(1, RLP.decode(wire))).toBe(bytesToHex(addressOf(KEY)))
    const back = ibft2Codec.decode(PREPARE, wire, decodeBlock)
    expect(back.signed.payload).toEqual({ height: 1n, round: 0, digest: DIGEST })
    expect(bytesToHex(back.signed.author)).toBe(bytesToHex(addressOf(KEY)))
  })

  it('writes COMMIT [height, round, digest, commitSeal] with fixed-width height and round', () => {
    const wire = ibft2Codec.encode({
      code: COMMIT,
      signed: ibft2Codec.signCommit({ height: 300n, round: 2, digest: DIGEST, seal: SEAL }, KEY),
    })
    const [payload] = RLP.decode(wire) as unknown as [Uint8Array[]]
    expect(payload.map(bytesToHex)).toEqual(['0x000000000000012c', '0x00000002', bytesToHex(DIGEST), bytesToHex(SEAL)])
    expect(signerOf(2, RLP.decode(wire))).toBe(bytesToHex(addressOf(KEY)))
    expect(ibft2Codec.decode(COMMIT, wire, decodeBlock).signed.payload).toEqual({
      height: 300n,
      round: 2,
      digest: DIGEST,
      seal: SEAL,
    })
  })

  it('writes PROPOSAL [[height, round, digest], signature] beside the block, certificate null in round 0', () => {
    const signed = ibft2Codec.signProposal({ height: 5n, round: 0, block }, KEY)
    const wire = ibft2Codec.encode({ code: PROPOSAL, signed, roundChanges: [], prepares: [] })
    const [signedItem, blockItem, certificate] = RLP.decode(wire) as unknown as [[Uint8Array[]], unknown, Uint8Array]
    const digest = commitSealHash('ibft2', block.header)
    expect(signedItem[0].map(bytesToHex)).toEqual(['0x0000000000000005', '0x00000000', bytesToHex(digest)])
    expect(RLP.encode(blockItem as never)).toEqual(block.serialize())
    expect(certificate).toEqual(new Uint8Array(0))
    expect(bytesToHex(wire).endsWith('80')).toBe(true)
    expect(signerOf(0, signedItem)).toBe(bytesToHex(addressOf(KEY)))
    const back = ibft2Codec.decode(PROPOSAL, wire, decodeBlock)
    if (back.code !== PROPOSAL) throw new Error('wrong code')
    expect(bytesToHex(back.signed.payload.block.hash())).toBe(bytesToHex(block.hash()))
    expect(back.roundChanges).toEqual([])
  })

  it('refuses a PROPOSAL whose digest is not the hash of its block', () => {
    const signed = ibft2Codec.signProposal({ height: 5n, round: 0, block }, KEY)
    const other = createBlock({ header: { number: 5n, extraData, gasLimit: 1n } }, { common })
    const wire = RLP.encode([[signed.raw, signed.signature], other.raw() as never, new Uint8Array(0)] as never)
    expect(() => ibft2Codec.decode(PROPOSAL, wire, decodeBlock)).toThrow('proposal digest')
  })

  it('signs the prepared certificate into ROUND_CHANGE and carries the block beside it', () => {
    const digest = commitSealHash('ibft2', block.header)
    const proposal = ibft2Codec.signProposal({ height: 5n, round: 0, block }, KEY)
    const prepare = ibft2Codec.signPrepare({ height: 5n, round: 0, digest }, KEY2)
    const certificate = {
      proposal: { ...proposal, payload: { height: 5n, round: 0, digest } },
      prepares: [prepare],
    }
    const payload = { height: 5n, round: 1, prepared: { round: 0, hash: digest }, certificate }
    const rc = ibft2Codec.signRoundChange(payload, KEY2)
    const wire = ibft2Codec.encode({ code: ROUND_CHANGE, signed: rc, preparedBlock: block, prepares: [prepare] })
    const [signedItem, blockItem] = RLP.decode(wire) as unknown as [[unknown[]], unknown]
    const [height, round, cert] = signedItem[0] as [Uint8Array, Uint8Array, unknown[]]
    expect([bytesToHex(height), bytesToHex(round)]).toEqual(['0x0000000000000005', '0x00000001'])
    // certificate: [[proposalPayload, signature], [[preparePayload, signature]]]
    expect(signerOf(0, cert[0])).toBe(bytesToHex(addressOf(KEY)))
    expect(signerOf(1, (cert[1] as unknown[])[0])).toBe(bytesToHex(addressOf(KEY2)))
    expect(signerOf(3, signedItem)).toBe(bytesToHex(addressOf(KEY2)))
    expect(RLP.encode(blockItem as never)).toEqual(block.serialize())
    const back = ibft2Codec.decode(ROUND_CHANGE, wire, decodeBlock)
    if (back.code !== ROUND_CHANGE) throw new Error('wrong code')
    expect(back.signed.payload.prepared).toEqual({ round: 0, hash: digest })
    expect(bytesToHex(back.signed.payload.certificate!.proposal.author)).toBe(bytesToHex(addressOf(KEY)))
    expect(back.prepares.map((p) => bytesToHex(p.author))).toEqual([bytesToHex(addressOf(KEY2))])
    expect(bytesToHex(back.preparedBlock!.hash())).toBe(bytesToHex(block.hash()))

    // Without a certificate: [height, round, null], and the block is null too.
    const bare = ibft2Codec.encode({
      code: ROUND_CHANGE,
      signed: ibft2Codec.signRoundChange({ height: 5n, round: 1 }, KEY),
      prepares: [],
    })
    const [bareSigned, noBlock] = RLP.decode(bare) as unknown as [[Uint8Array[]], Uint8Array]
    expect(bareSigned[0].map(bytesToHex)).toEqual(['0x0000000000000005', '0x00000001', '0x'])
    expect(noBlock).toEqual(new Uint8Array(0))

    // A round-1 proposal justified by this round change: certificate [[signedRoundChange]].
    const reproposal = ibft2Codec.signProposal({ height: 5n, round: 1, block }, KEY2)
    const pwire = ibft2Codec.encode({ code: PROPOSAL, signed: reproposal, roundChanges: [rc], prepares: [] })
    const [, , rcCert] = RLP.decode(pwire) as unknown as [unknown, unknown, unknown[][]]
    expect(rcCert).toHaveLength(1)
    expect(signerOf(3, rcCert[0][0])).toBe(bytesToHex(addressOf(KEY2)))
    const pback = ibft2Codec.decode(PROPOSAL, pwire, decodeBlock)
    if (pback.code !== PROPOSAL) throw new Error('wrong code')
    expect(pback.roundChanges.map((r) => r.payload.prepared)).toEqual([{ round: 0, hash: digest }])
    expect(pback.prepares.map((p) => bytesToHex(p.author))).toEqual([bytesToHex(addressOf(KEY2))])
  })

  it('refuses scalar round identifiers, QBFT frames and unknown codes', () => {
    const qbftStyle = RLP.encode([[Uint8Array.of(1), new Uint8Array(0), DIGEST], SEAL])
    expect(() => ibft2Codec.decode(PREPARE, qbftStyle, decodeBlock)).toThrow(QbftMessageError)
    expect(() => ibft2Codec.decode(PREPARE, hexToBytes('0x01'), decodeBlock)).toThrow(QbftMessageError)
    const wire = ibft2Codec.encode({
      code: PREPARE,
      signed: ibft2Codec.signPrepare({ height: 1n, round: 0, digest: DIGEST }, KEY),
    })
    expect(() => ibft2Codec.decode(PROPOSAL + 4, wire, decodeBlock)).toThrow('unknown message code 4')
    expect(bytesToHex(ibft2Codec.origin(PREPARE, wire).author)).toBe(bytesToHex(addressOf(KEY)))
  })
})
