/**
 * The latest Besu's Amsterdam on the dev sealer: a value transfer emits its EIP-7708 log, a
 * refund-earning SSTORE shows EIP-7778's block gas (before refunds) beside the receipt's (after),
 * SLOTNUM (EIP-7843) reads the header's slot number, and the sealed block imports elsewhere; an
 * Amsterdam header without a slot number (the earlier Besu's Amsterdam) is refused in one line.
 */
import { RLP } from '@ethereumjs/rlp'
import { createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { SENDER as SENDER_ADDRESS, sealCalls } from '../../test/chain/accessListChain.ts'
import { SYSTEM_CONTRACTS } from '../evm/systemContracts.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { importBlock } from './blockImporter.ts'
import { decodeBlockRlp, RlpFileError } from './blockRlp.ts'
import { parseGenesisText } from './genesis.ts'
import { openMemoryChain } from './memoryChain.ts'

const SENDER = SENDER_ADDRESS as `0x${string}`
/** An existing account (no new-account state gas for the transfer). */
const RECIPIENT: `0x${string}` = '0x00000000000000000000000000000000000000aa'
/** PUSH1 0, PUSH1 1, SSTORE: clears slot 1, set to 1 in the genesis (a refund). */
const CLEARER: `0x${string}` = '0x00000000000000000000000000000000000000cc'
/** SLOTNUM (0x4b), PUSH1 0, SSTORE: the block's slot number into slot 0 (set in the genesis: no new slot). */
const SLOTNUM: `0x${string}` = '0x00000000000000000000000000000000000000dd'
/**
 * Both builder request contracts (EIP-8282) at one address the config names, as Besu's config keys
 * allow: a stub that returns nothing (no builder requests), so that the checked system calls find code.
 */
const BUILDER_REQUESTS = '0x0000000000000000000000000000000000009999'

function genesisText(): string {
  const alloc: Record<string, unknown> = {
    [SENDER]: { balance: '0xde0b6b3a7640000' },
    [RECIPIENT]: { balance: '0x1' },
    [CLEARER]: { code: '0x600060015500', storage: { '0x01': '0x01' } },
    [SLOTNUM]: { code: '0x4b60005500', storage: { '0x00': '0x09' } },
    [BUILDER_REQUESTS]: { code: '0x00' },
  }
  for (const c of SYSTEM_CONTRACTS) alloc[c.address] = { code: c.code, nonce: '0x1' }
  return JSON.stringify({
    config: {
      chainId: 7,
      terminalTotalDifficulty: 0,
      amsterdamTime: 0,
      builderDepositRequestContractAddress: BUILDER_REQUESTS,
      builderExitRequestContractAddress: BUILDER_REQUESTS,
    },
    difficulty: '0x0',
    gasLimit: '0x1c9c380',
    baseFeePerGas: '0x7',
    alloc,
  })
}

function sealThree() {
  return sealCalls(genesisText(), [
    [RECIPIENT, 5n],
    [CLEARER, 0n],
    [SLOTNUM, 0n],
  ])
}

const word = (hex: string) => bytesToHex(setLengthLeft(hexToBytes(hex as `0x${string}`), 32))

describe('Amsterdam (the latest Besu releases)', () => {
  it('seals a transfer log, pre-refund block gas, the slot number, and imports the block elsewhere', async () => {
    const { chain, block } = await sealThree()
    expect(block.header.slotNumber).toBe(1n)
    expect(block.transactions.length).toBe(3)
    const receipts = chain.getReceipts(block)
    expect(receipts.map((r) => r.status)).toEqual([1, 1, 1])
    // EIP-7708: LOG3 from the system address, Transfer(from, to) topics, the value as a 32-byte word.
    const [transferLog] = receipts[0].logs
    expect(receipts[0].logs.length).toBe(1)
    expect(bytesToHex(transferLog[0])).toBe('0xfffffffffffffffffffffffffffffffffffffffe')
    expect(transferLog[1].map(bytesToHex)).toEqual([
      bytesToHex(keccak_256(new TextEncoder().encode('Transfer(address,address,uint256)'))),
      word(SENDER),
      word(RECIPIENT),
    ])
    expect(bytesToHex(transferLog[2])).toBe(word('0x05'))
    expect(receipts[1].logs).toEqual([])
    // The log is in the block's bloom: the system address and the three topics.
    const bloom = block.header.logsBloom
    for (const item of [transferLog[0], ...transferLog[1]]) {
      const h = keccak_256(item)
      for (const i of [0, 2, 4]) {
        const bit = ((h[i] << 8) | h[i + 1]) & 2047
        expect((bloom[255 - Math.floor(bit / 8)] >> (bit % 8)) & 1).toBe(1)
      }
    }
    // EIP-2780: the transfer is TX_BASE 12,000 + the cold recipient 3,000 + its value write 4,244
    // + its log 1,756 = 21,000. The clearing call is 15,000 + 6 (two PUSH1) + the SSTORE (cold
    // slot 2,100 + warm 100 + write 10,000) = 27,106 before its refund (EIP-8038's 11,616, capped
    // at a fifth: 5,421). EIP-7778: the receipts count gas after refunds, the header before them.
    expect(receipts.map((r) => r.cumulativeGasUsed)).toEqual([21_000n, 42_685n, 69_790n])
    expect(block.header.gasUsed).toBe(69_790n + 27_106n / 5n)
    // EIP-7843: SLOTNUM stored the header's slot number.
    const state = chain.stateAt(block)
    const slot0 = await state.getStorage(createAddressFromString(SLOTNUM), new Uint8Array(32))
    expect(bytesToHex(slot0)).toBe('0x01')
    // The same block on another node: re-executed, the same hash.
    const other = await openMemoryChain(parseGenesisText(genesisText(), 'g.json'))
    const again = await decodeBlockRlp(other, block.serialize())
    await importBlock(other, again, { setHead: true })
    expect(bytesToHex(other.head.hash())).toBe(bytesToHex(block.hash()))
    expect(other.head.header.gasUsed).toBe(block.header.gasUsed)
  })

  it('refuses an Amsterdam header without a slot number in one line', async () => {
    const { block } = await sealThree()
    const other = await openMemoryChain(parseGenesisText(genesisText(), 'g.json'))
    const raw = block.raw() as unknown as Uint8Array[][]
    const earlier = [raw[0].slice(0, -1), ...raw.slice(1)]
    const error = await decodeBlockRlp(other, RLP.encode(earlier as never)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RlpFileError)
    expect((error as Error).message).toContain('without a slot number (EIP-7843)')
  })
})
