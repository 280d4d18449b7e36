import { readFileSync } from 'node:fs'
import { type Block, createBlockFromBytesArray } from '@ethereumjs/block'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { CONFORMANCE_DIR, hasConformanceChain } from '../../test/fixtures/sharedConformance.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { beforeEach, describe, expect, it } from '../runtime/testing.ts'
import { BlockImportError, importBlock } from './blockImporter.ts'
import { decodeBlockRlp, splitRlpItems } from './blockRlp.ts'
import type { Chain } from './chain.ts'
import { normalizeGenesis } from './genesis.ts'
import { openMemoryChain } from './memoryChain.ts'

// The execution-apis test chain: PoW blocks with ommers up to 35, then PoS. Blocks 1..41 carry no
// blob transactions, so these tests never load KZG.
const DIR = CONFORMANCE_DIR
const HAS_FIXTURES = hasConformanceChain('importBlock on the execution-apis chain')

function openTestChain(): Promise<Chain> {
  return openMemoryChain(normalizeGenesis(JSON.parse(readFileSync(`${DIR}genesis.json`, 'utf8'))))
}

/** A copy of `block` with header field `index` replaced (the hash changes with it). */
function withHeaderField(chain: Chain, block: Block, index: number, value: Uint8Array): Block {
  const raw = block.raw() as unknown as Uint8Array[][]
  const header = [...raw[0]]
  header[index] = value
  return createBlockFromBytesArray([header, ...raw.slice(1)] as never, { common: chain.common, setHardfork: true })
}

const STATE_ROOT = 3
const DIFFICULTY = 7
const TIMESTAMP = 11

describe.skipIf(!HAS_FIXTURES)('importBlock', () => {
  let chain: Chain
  let blocks: Block[]

  beforeEach(async () => {
    chain = await openTestChain()
    const items = [...splitRlpItems(readFileSync(`${DIR}chain.rlp`))].slice(0, 40)
    blocks = await Promise.all(items.map((rlp) => decodeBlockRlp(chain, rlp)))
  })

  it('imports PoW blocks with ommers, the merge and Shanghai withdrawals to the known head', async () => {
    for (const b of blocks) await importBlock(chain, b, { setHead: true, skipPowValidation: true })
    expect(chain.head.header.number).toBe(40n)
    expect(bytesToHex(chain.head.hash())).toBe(bytesToHex(blocks[39].hash()))
    expect(chain.getReceipts(chain.head).length).toBe(blocks[39].transactions.length)
  })

  it('stores without moving the head when setHead is false, and reports a known block as such', async () => {
    const first = await importBlock(chain, blocks[0], { setHead: false, skipPowValidation: true })
    expect(first.isKnown).toBe(false)
    expect(chain.head.header.number).toBe(0n)
    expect(chain.store.hasBlock(blocks[0].hash())).toBe(true)
    const again = await importBlock(chain, blocks[0], { setHead: true, skipPowValidation: true })
    expect(again.isKnown).toBe(true)
    expect(chain.head.header.number).toBe(1n)
  })

  it('rejects a block whose state root differs from execution, records it, and keeps the head', async () => {
    for (const b of blocks.slice(0, 4)) await importBlock(chain, b, { setHead: true, skipPowValidation: true })
    const bad = withHeaderField(chain, blocks[4], STATE_ROOT, new Uint8Array(32).fill(1))
    const err = await importBlock(chain, bad, { setHead: true, skipPowValidation: true }).catch((e) => e)
    expect(err).toBeInstanceOf(BlockImportError)
    expect(err.kind).toBe('invalid')
    expect(err.number).toBe(5n)
    expect(err.reason).toContain('stateRoot')
    expect(chain.head.header.number).toBe(4n)
    expect(chain.store.readBadBlocks().map((b) => bytesToHex(b.hash))).toEqual([bytesToHex(bad.hash())])
  })

  it('rejects a wrong ethash difficulty and a timestamp not after the parent', async () => {
    await importBlock(chain, blocks[0], { setHead: true, skipPowValidation: true })
    const wrongDifficulty = withHeaderField(chain, blocks[1], DIFFICULTY, new Uint8Array([0x03, 0, 0]))
    const e1 = await importBlock(chain, wrongDifficulty, { setHead: true, skipPowValidation: true }).catch((e) => e)
    expect(e1.reason).toContain('invalid difficulty')
    const sameTime = withHeaderField(chain, blocks[1], TIMESTAMP, blocks[0].header.serialize().subarray(0, 0))
    const e2 = await importBlock(chain, sameTime, { setHead: true, skipPowValidation: true }).catch((e) => e)
    expect(e2.reason).toContain('invalid timestamp')
  })

  it('refuses proof-of-work blocks unless seal validation is skipped, without recording them as bad', async () => {
    const err = await importBlock(chain, blocks[0], { setHead: true }).catch((e) => e)
    expect(err.kind).toBe('invalid')
    expect(err.reason).toContain('seal')
    expect(chain.store.readBadBlocks()).toEqual([])
  })

  it('reports an unknown parent without recording a bad block', async () => {
    const err = await importBlock(chain, blocks[5], { setHead: true, skipPowValidation: true }).catch((e) => e)
    expect(err.kind).toBe('unknownParent')
    expect(chain.store.readBadBlocks()).toEqual([])
  })
})

describe('splitRlpItems', () => {
  it('splits concatenated items of short and long forms', () => {
    const long = new Uint8Array(60).fill(7)
    const bytes = new Uint8Array([0x05, 0x82, 1, 2, 0xb8, 60, ...long, 0xc2, 0x01, 0x02])
    const items = [...splitRlpItems(bytes)].map((x) => x.length)
    expect(items).toEqual([1, 3, 62, 3])
  })

  it('throws on a truncated item', () => {
    expect(() => [...splitRlpItems(new Uint8Array([0xc3, 1]))]).toThrow('truncated')
  })
})
