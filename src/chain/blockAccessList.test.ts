/**
 * Block access lists (EIP-7928) on Besu's Amsterdam and FutureEips: the hash the dev sealer writes
 * into `blockAccessListHash` is checked against a list built by hand the way Besu's
 * BlockAccessListEncoder writes it, and import recomputes it.
 */
import { createBlockFromBytesArray } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, createAddressFromString, intToUnpaddedBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import {
  BUILDERS,
  COINBASE,
  CONTRACT,
  genesisText,
  READ,
  RECIPIENT,
  SENDER,
  sealTransferAndCall,
} from '../../test/chain/accessListChain.ts'
import { SYSTEM_CONTRACTS } from '../evm/systemContracts.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { BlockImportError, importBlock } from './blockImporter.ts'
import { parseGenesisText } from './genesis.ts'
import { openMemoryChain } from './memoryChain.ts'

/** Header fields up to the requests hash come first (EIP-7685 is field 20). */
const BAL_HASH_INDEX = 21

describe('block access lists (EIP-7928)', () => {
  it("seals an Amsterdam block whose blockAccessListHash is Besu's encoding of a hand-built list", async () => {
    const { chain, block } = await sealTransferAndCall({ amsterdamTime: 0 })
    expect(block.common.hardfork()).toBe('amsterdam')
    expect(block.transactions.length).toBe(2)
    const state = chain.stateAt(block)
    const balance = async (a: string) => (await state.getAccount(createAddressFromString(a)))!.balance
    const q = (n: bigint | number) => (typeof n === 'number' ? intToUnpaddedBytes(n) : bigIntToUnpaddedBytes(n))
    const b = (hex: string) => hexToBytes(hex as `0x${string}`)
    // Besu's encoder: per account [address, storageChanges, storageReads, balanceChanges,
    // nonceChanges, codeChanges], accounts by address, slots and values as scalars, changes by index
    // (0: before the transactions, 1 and 2: the transactions, 3: after them).
    const fee1 = await balance(COINBASE) // the coinbase after both transactions
    // A transfer to a new account: EIP-2780's 21,000 (12,000 + cold recipient 3,000 + value write
    // 4,244 + transfer log 1,756) and EIP-8037's new account, 120 state bytes at 1,530 gas each.
    const gas1 = 21_000n + 120n * 1530n
    // Base fee 7 (the genesis's, unchanged after an empty block) plus the tip of 2.
    const [tip1, senderAfter1] = [gas1 * 2n, 10n ** 18n - 5n - gas1 * 9n]
    const history = SYSTEM_CONTRACTS.find((c) => c.eip === 'EIP-2935')!.address
    const beacon = SYSTEM_CONTRACTS.find((c) => c.eip === 'EIP-4788')!.address
    const queues = ['EIP-7002', 'EIP-7251'].map((eip) => SYSTEM_CONTRACTS.find((c) => c.eip === eip)!.address)
    const accounts: [string, unknown[], unknown[], unknown[], unknown[], unknown[]][] = [
      // EIP-2935: block 0's hash at slot 0 (the parent's number mod 8191).
      [history, [[q(0), [[q(0), chain.genesis.hash()]]]], [], [], [], []],
      [READ, [], [], [], [], []],
      [RECIPIENT, [], [], [[q(1), q(5)]], [], []],
      [CONTRACT, [[q(1), [[q(2), q(0x2a)]]]], [], [], [], []],
      [
        COINBASE,
        [],
        [],
        [
          [q(1), q(tip1)],
          [q(2), q(fee1)],
        ],
        [],
        [],
      ],
      // EIP-4788: the timestamp and the parent beacon root (zero) at the ring-buffer slots.
      [
        beacon,
        [[q(block.header.timestamp % 8191n), [[q(0), q(block.header.timestamp)]]]],
        [q((block.header.timestamp % 8191n) + 8191n)],
        [],
        [],
        [],
      ],
      // EIP-7002 / EIP-7251 dequeue calls after the transactions: their queue slots 0-3 read.
      ...queues.map((a): (typeof accounts)[number] => [a, [], [q(0), q(1), q(2), q(3)], [], [], []]),
      // EIP-8282's builder request calls after them: the stub is called, nothing read or changed.
      [BUILDERS, [], [], [], [], []],
      [
        SENDER,
        [],
        [],
        [
          [q(1), q(senderAfter1)],
          [q(2), q(await balance(SENDER))],
        ],
        [
          [q(1), q(1)],
          [q(2), q(2)],
        ],
        [],
      ],
    ]
    accounts.sort((x, y) => (x[0] < y[0] ? -1 : 1))
    const list = accounts.map(([a, ...rest]) => [b(a), ...rest])
    const expected = keccak_256(RLP.encode(list as never))
    expect(bytesToHex(block.header.blockAccessListHash!)).toBe(bytesToHex(expected))
  })

  it('imports the sealed blocks of Amsterdam, FutureEips and ExperimentalEips on another node', async () => {
    for (const config of [{ amsterdamTime: 0 }, { futureEipsTime: 0 }, { experimentalEipsTime: 0 }]) {
      const { block } = await sealTransferAndCall(config)
      expect(block.header.blockAccessListHash?.length).toBe(32)
      const other = await openMemoryChain(parseGenesisText(genesisText(config), 'g.json'))
      const again = createBlockFromBytesArray(block.raw() as never, { common: other.common, setHardfork: true })
      await importBlock(other, again, { setHead: true })
      expect(bytesToHex(other.head.hash())).toBe(bytesToHex(block.hash()))
    }
  })

  it("refuses a block whose blockAccessListHash is not the executed list's, with Besu's message", async () => {
    const { block } = await sealTransferAndCall({ amsterdamTime: 0 })
    const other = await openMemoryChain(parseGenesisText(genesisText({ amsterdamTime: 0 }), 'g.json'))
    const raw = block.raw() as unknown as Uint8Array[][]
    const header = [...raw[0]]
    header[BAL_HASH_INDEX] = new Uint8Array(32).fill(1)
    const bad = createBlockFromBytesArray([header, ...raw.slice(1)] as never, {
      common: other.common,
      setHardfork: true,
    })
    const error = await importBlock(other, bad, { setHead: true }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BlockImportError)
    expect((error as BlockImportError).reason).toBe(
      `Block access list hash mismatch, calculated: ${bytesToHex(block.header.blockAccessListHash!)} header: 0x${'01'.repeat(32)}`,
    )
  })
})
