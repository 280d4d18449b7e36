import { type Block, createBlock, createBlockFromBytesArray } from '@ethereumjs/block'
import { Common, Mainnet } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { ecrecover, publicToAddress } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { addressOf } from '../bftHashing.ts'
import {
  COMMIT,
  decodeMessage,
  encodeMessage,
  PREPARE,
  PROPOSAL,
  QbftMessageError,
  ROUND_CHANGE,
  signCommit,
  signPrepare,
  signProposal,
  signRoundChange,
} from './messages.ts'

const KEY = new Uint8Array(32).fill(7)
const DIGEST = new Uint8Array(32).fill(0x11)
const SEAL = new Uint8Array(65).fill(0x22)
const common = new Common({ chain: Mainnet, hardfork: 'london' })
const decodeBlock = (values: unknown) => createBlockFromBytesArray(values as never, { common })
const block: Block = createBlock({ header: { number: 5n, extraData: new Uint8Array(20).fill(3) } }, { common })

/** The signer of a wire message [payload, signature], recovered independently of the codec. */
function signerOf(code: number, wire: Uint8Array): string {
  const [payload, sig] = RLP.decode(wire) as [Uint8Array, Uint8Array]
  const hash = keccak_256(RLP.encode([code === 0 ? new Uint8Array(0) : Uint8Array.of(code), payload]))
  const pub = ecrecover(hash, BigInt(sig[64]) + 27n, sig.subarray(0, 32), sig.subarray(32, 64))
  return bytesToHex(publicToAddress(pub))
}

describe('QBFT message codec', () => {
  it('writes PREPARE as [[height, round, digest], signature], signed over keccak(rlp([0x13, payload]))', () => {
    const signed = signPrepare({ height: 1n, round: 0, digest: DIGEST }, KEY)
    const wire = encodeMessage({ code: PREPARE, signed })
    // payload: list of 35 bytes: 0x01, round 0 as the empty string (0x80), 32-byte digest
    expect(bytesToHex(RLP.encode(RLP.decode(wire)[0] as Uint8Array))).toBe(`0xe30180a0${'11'.repeat(32)}`)
    expect(wire.length).toBe(2 + 36 + 67)
    expect(signerOf(PREPARE, wire)).toBe(bytesToHex(addressOf(KEY)))
    const back = decodeMessage(PREPARE, wire, decodeBlock)
    expect(back.code).toBe(PREPARE)
    expect(bytesToHex(back.signed.author)).toBe(bytesToHex(addressOf(KEY)))
    expect(back.signed.payload).toEqual({ height: 1n, round: 0, digest: DIGEST })
  })

  it('writes COMMIT with the commit seal as a fourth payload item', () => {
    const wire = encodeMessage({
      code: COMMIT,
      signed: signCommit({ height: 300n, round: 2, digest: DIGEST, seal: SEAL }, KEY),
    })
    const [payload] = RLP.decode(wire) as unknown as [Uint8Array[]]
    expect(payload.map(bytesToHex)).toEqual(['0x012c', '0x02', bytesToHex(DIGEST), bytesToHex(SEAL)])
    expect(signerOf(COMMIT, wire)).toBe(bytesToHex(addressOf(KEY)))
    expect(decodeMessage(COMMIT, wire, decodeBlock).signed.payload).toEqual({
      height: 300n,
      round: 2,
      digest: DIGEST,
      seal: SEAL,
    })
  })

  it('writes ROUND_CHANGE as [signed, preparedBlock | [], prepares], metadata [preparedRound, hash] or []', () => {
    const bare = encodeMessage({
      code: ROUND_CHANGE,
      signed: signRoundChange({ height: 4n, round: 1 }, KEY),
      prepares: [],
    })
    const [signed, noBlock, noPrepares] = RLP.decode(bare) as unknown as [[Uint8Array[]], unknown[], unknown[]]
    expect(signed[0].map((x) => (x instanceof Uint8Array ? bytesToHex(x) : x)) as unknown[]).toEqual([
      '0x04',
      '0x01',
      [],
    ])
    expect(noBlock).toEqual([])
    expect(noPrepares).toEqual([])
    const prepare = signPrepare({ height: 5n, round: 0, digest: block.hash() }, KEY)
    const rc = signRoundChange({ height: 5n, round: 1, prepared: { round: 0, hash: block.hash() } }, KEY)
    const wire = encodeMessage({ code: ROUND_CHANGE, signed: rc, preparedBlock: block, prepares: [prepare] })
    const [payload] = (RLP.decode(wire) as unknown as [[unknown[]]])[0]
    expect(payload[2]).toEqual([new Uint8Array(0), block.hash()])
    const back = decodeMessage(ROUND_CHANGE, wire, decodeBlock)
    if (back.code !== ROUND_CHANGE) throw new Error('wrong code')
    expect(back.signed.payload.prepared).toEqual({ round: 0, hash: block.hash() })
    expect(bytesToHex(back.preparedBlock!.hash())).toBe(bytesToHex(block.hash()))
    expect(back.prepares).toHaveLength(1)
  })

  it('writes PROPOSAL as [signed [height, round, block], [roundChanges, prepares]]', () => {
    const signed = signProposal({ height: 5n, round: 1, block }, KEY)
    const rc = signRoundChange({ height: 5n, round: 1 }, KEY)
    const wire = encodeMessage({ code: PROPOSAL, signed, roundChanges: [rc], prepares: [] })
    const [[payload], justification] = RLP.decode(wire) as unknown as [[unknown[]], unknown[][]]
    expect(RLP.encode(payload[2] as never)).toEqual(block.serialize())
    expect(justification).toHaveLength(2)
    expect(justification[1]).toEqual([])
    const back = decodeMessage(PROPOSAL, wire, decodeBlock)
    if (back.code !== PROPOSAL) throw new Error('wrong code')
    expect(bytesToHex(back.signed.payload.block.hash())).toBe(bytesToHex(block.hash()))
    expect(back.roundChanges.map((r) => r.payload)).toEqual([{ height: 5n, round: 1 }])
  })

  it('refuses malformed messages', () => {
    const wire = encodeMessage({ code: PREPARE, signed: signPrepare({ height: 1n, round: 0, digest: DIGEST }, KEY) })
    const [payload, sig] = RLP.decode(wire) as [Uint8Array, Uint8Array]
    const badV = Uint8Array.from(sig)
    badV[64] = 7
    const cases = [
      hexToBytes('0x01'),
      RLP.encode([payload]),
      RLP.encode([payload, badV]),
      RLP.encode([[Uint8Array.of(1), new Uint8Array(0)], sig]),
      RLP.encode([[Uint8Array.of(0, 1), new Uint8Array(0), DIGEST], sig]),
    ]
    for (const c of cases) expect(() => decodeMessage(PREPARE, c, decodeBlock)).toThrow(QbftMessageError)
    expect(() => decodeMessage(0x16, wire, decodeBlock)).toThrow('unknown message code 0x16')
  })
})
