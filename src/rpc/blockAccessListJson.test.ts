/**
 * The JSON of a block access list: execution-apis' `eth_getBlockAccessList` example (src/eth/block.yaml)
 * encoded by hand in EIP-7928's RLP, decoded back into the example's JSON, and Besu's earlier shape.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, intToUnpaddedBytes } from '@ethereumjs/util'
import { hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { blockAccessListJson, legacyBlockAccessListJson } from './blockAccessListJson.ts'

const ADDRESS = '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b'
const CODE_OWNER = '0x00000000000000000000000000000000000000c0'
const q = (n: number | bigint) => (typeof n === 'number' ? intToUnpaddedBytes(n) : bigIntToUnpaddedBytes(n))
const word = (n: number): `0x${string}` => `0x${n.toString(16).padStart(64, '0')}`
const word256 = (hex: string): `0x${string}` => `0x${hex.padStart(64, '0')}`

// [address, storageChanges, storageReads, balanceChanges, nonceChanges, codeChanges]; scalars unpadded.
const RLP_LIST = RLP.encode([
  [
    hexToBytes(ADDRESS),
    [
      [
        q(0),
        [
          [q(0), q(0)],
          [q(1), q(0x100)],
        ],
      ],
    ],
    [],
    [
      [q(0), q(0x56bc75e2d63100000n)],
      [q(1), q(0x56bc75e2d63000000n)],
    ],
    [
      [q(0), q(0)],
      [q(1), q(1)],
    ],
    [],
  ],
  [hexToBytes(CODE_OWNER), [], [q(7)], [], [], [[q(2), hexToBytes('0x6001')]]],
] as never)

describe('blockAccessListJson', () => {
  it("answers execution-apis' example, every field present and empty lists as []", () => {
    expect(blockAccessListJson(RLP_LIST)).toEqual([
      {
        address: ADDRESS,
        storageChanges: [
          {
            key: word(0),
            changes: [
              { index: '0x0', value: word(0) },
              { index: '0x1', value: word(0x100) },
            ],
          },
        ],
        storageReads: [],
        balanceChanges: [
          { index: '0x0', value: '0x56bc75e2d63100000' },
          { index: '0x1', value: '0x56bc75e2d63000000' },
        ],
        nonceChanges: [
          { index: '0x0', value: '0x0' },
          { index: '0x1', value: '0x1' },
        ],
        codeChanges: [],
      },
      {
        address: CODE_OWNER,
        storageChanges: [],
        storageReads: [word(7)],
        balanceChanges: [],
        nonceChanges: [],
        codeChanges: [{ index: '0x2', code: '0x6001' }],
      },
    ])
  })

  it('keeps the field order of the schema', () => {
    expect(Object.keys(blockAccessListJson(RLP_LIST)[0])).toEqual([
      'address',
      'storageChanges',
      'storageReads',
      'balanceChanges',
      'nonceChanges',
      'codeChanges',
    ])
  })

  it('refuses bytes that are not an access list', () => {
    expect(() => blockAccessListJson(RLP.encode([hexToBytes('0x01')]))).toThrow('invalid block access list')
  })
})

describe('legacyBlockAccessListJson', () => {
  it("writes Besu's first shape: accountChanges, numeric indices, words, base64 code, empty lists left out", () => {
    expect(legacyBlockAccessListJson(RLP_LIST)).toEqual({
      accountChanges: [
        {
          address: ADDRESS,
          storageChanges: [
            {
              slot: word(0),
              changes: [
                { txIndex: 0, newValue: word(0) },
                { txIndex: 1, newValue: word(0x100) },
              ],
            },
          ],
          balanceChanges: [
            { txIndex: 0, postBalance: word256('56bc75e2d63100000') },
            { txIndex: 1, postBalance: word256('56bc75e2d63000000') },
          ],
          nonceChanges: [
            { txIndex: 0, newNonce: 0 },
            { txIndex: 1, newNonce: 1 },
          ],
        },
        { address: CODE_OWNER, storageReads: [word(7)], codeChanges: [{ txIndex: 2, newCode: 'YAE=' }] },
      ],
    })
  })
})
