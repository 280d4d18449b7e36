import { keccak_256 } from '@noble/hashes/sha3.js'
import { recoverAddress } from '../../consensus/bftHashing.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { signHash } from '../../primitives/nodeKey.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { encodeType, hashStruct, parseTypedData, personalMessageHash, typedDataHash } from './messageHashing.ts'

/** EIP-712's own example (the "Mail" document of the EIP's text and its Example.js). */
const MAIL = {
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ],
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: {
    name: 'Ether Mail',
    version: '1',
    chainId: 1,
    verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
  },
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
  },
}

describe('EIP-712 typed data hashing', () => {
  const doc = parseTypedData(MAIL)

  it('encodes a type with its dependencies sorted after it', () => {
    expect(encodeType(doc.types, 'Mail')).toBe(
      'Mail(Person from,Person to,string contents)Person(string name,address wallet)',
    )
    expect(bytesToHex(keccak_256(new TextEncoder().encode(encodeType(doc.types, 'Mail'))))).toBe(
      '0xa0cedeb2dc280ba39b857546d74f5549c3a1d7bdc2dd96bf881f76108e23dac2',
    )
  })

  it("hashes the EIP's Mail example to the EIP's values", () => {
    expect(bytesToHex(hashStruct(doc.types, 'EIP712Domain', doc.domain))).toBe(
      '0xf2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f',
    )
    expect(bytesToHex(hashStruct(doc.types, 'Mail', doc.message))).toBe(
      '0xc52c0ee5d84264471806290a3f2c4cecfc5490626bf912d01f240d7a274b371e',
    )
    expect(bytesToHex(typedDataHash(doc))).toBe('0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2')
  })

  it("signs as the EIP's example does with Cow's key, and the signature recovers Cow", () => {
    const key = keccak_256(new TextEncoder().encode('cow'))
    const sig = signHash(typedDataHash(doc), key)
    expect(bytesToHex(sig.subarray(0, 32))).toBe('0x4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d')
    expect(bytesToHex(sig.subarray(32, 64))).toBe('0x07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b91562')
    expect(sig[64] + 27).toBe(28)
    expect(bytesToHex(recoverAddress(typedDataHash(doc), sig)!)).toBe('0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826')
  })

  it('takes the document as JSON text, and builds EIP712Domain from the domain when it is left out', () => {
    expect(typedDataHash(parseTypedData(JSON.stringify(MAIL)))).toEqual(typedDataHash(doc))
    const { EIP712Domain: _, ...types } = MAIL.types
    expect(typedDataHash(parseTypedData({ ...MAIL, types }))).toEqual(typedDataHash(doc))
  })

  it('hashes arrays element by element and numbers given as hex, decimal or JSON numbers alike', () => {
    const types = {
      EIP712Domain: [],
      Batch: [
        { name: 'amounts', type: 'uint256[]' },
        { name: 'tag', type: 'bytes4' },
      ],
    }
    const hash = (amounts: unknown[]) =>
      bytesToHex(
        typedDataHash(
          parseTypedData({ types, primaryType: 'Batch', domain: {}, message: { amounts, tag: '0x01020304' } }),
        ),
      )
    expect(hash([1, '0x2', '3'])).toBe(hash(['1', 2, '0x03']))
    // keccak(typeHash ‖ keccak(word(1) ‖ word(2) ‖ word(3)) ‖ bytes4 left-aligned)
    const typeHash = keccak_256(new TextEncoder().encode('Batch(uint256[] amounts,bytes4 tag)'))
    const words = hexToBytes(`0x${[1, 2, 3].map((n) => n.toString(16).padStart(64, '0')).join('')}`)
    const tag = hexToBytes(`0x01020304${'0'.repeat(56)}`)
    const struct = keccak_256(new Uint8Array([...typeHash, ...keccak_256(words), ...tag]))
    const domain = keccak_256(keccak_256(new TextEncoder().encode('EIP712Domain()')))
    expect(hash([1, 2, 3])).toBe(bytesToHex(keccak_256(new Uint8Array([0x19, 0x01, ...domain, ...struct]))))
  })

  it('refuses malformed documents with a message naming the problem', () => {
    const bad = (d: unknown) => {
      try {
        typedDataHash(parseTypedData(d))
      } catch (e) {
        return (e as Error).message
      }
      return 'no error'
    }
    expect(bad('{')).toBe('typed data is not valid JSON')
    expect(bad({})).toBe('typed data: types must be an object')
    expect(bad({ ...MAIL, primaryType: 'Letter' })).toBe('typed data: missing type in type resolution: Letter')
    expect(bad({ ...MAIL, message: { ...MAIL.message, to: { name: 'Bob', wallet: '0x12' } } })).toBe(
      'typed data: Person.wallet must be an address of 20 bytes, got 1',
    )
    expect(bad({ ...MAIL, domain: { ...MAIL.domain, chainId: -1 } })).toBe(
      'typed data: EIP712Domain.chainId is out of range for uint256',
    )
    expect(bad({ ...MAIL, message: { ...MAIL.message, contents: undefined } })).toBe(
      'typed data: Mail.contents is missing',
    )
    expect(bad({ ...MAIL, types: { ...MAIL.types, Person: [{ name: 'name', type: 'uint7' }] } })).toBe(
      'typed data: unknown type uint7 at Person.name',
    )
  })
})

describe('EIP-191 personal messages', () => {
  it('prefixes the message with its length before hashing', () => {
    const hello = new TextEncoder().encode('hello')
    const expected = keccak_256(new TextEncoder().encode('\x19Ethereum Signed Message:\n5hello'))
    expect(personalMessageHash(hello)).toEqual(expected)
  })

  it('gives the signature Anvil gives for "hello" from the first test account, which recovers it', () => {
    const key = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
    const digest = personalMessageHash(new TextEncoder().encode('hello'))
    const sig = signHash(digest, key)
    sig[64] += 27
    expect(bytesToHex(sig)).toBe(
      '0xf16ea9a3478698f695fd1401bfe27e9e4a7e8e3da94aa72b021125e31fa899cc573c48ea3fe1d4ab61a9db10c19032026e3ed2dbccba5a178235ac27f94504311c',
    )
    sig[64] -= 27
    expect(bytesToHex(recoverAddress(digest, sig)!)).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')
  })
})
