/**
 * Block access lists stored with their blocks (sealed by the dev sealer, imported by another node)
 * and served under each of Besu's method names, with Besu's errors; and the Engine API's V2 bodies.
 */
import { createBlockFromBytesArray } from '@ethereumjs/block'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { COINBASE, CONTRACT, genesisText, RECIPIENT, sealTransferAndCall } from '../../../test/chain/accessListChain.ts'
import { call } from '../../../test/rpc/rpcHarness.ts'
import { importBlock } from '../../chain/blockImporter.ts'
import type { Chain } from '../../chain/chain.ts'
import { parseGenesisText } from '../../chain/genesis.ts'
import { openMemoryChain } from '../../chain/memoryChain.ts'
import { getPayloadBodiesByHashV2, getPayloadBodiesByRangeV2 } from '../../engine/payloadBodiesV2.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { blockAccessListJson } from '../blockAccessListJson.ts'
import type { RpcContext } from '../context.ts'
import {
  getBlockAccessList,
  getBlockAccessListByBlockHash,
  getBlockAccessListByBlockNumber,
  getBlockAccessListByNumber,
} from './blockAccessListMethods.ts'

const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
const contextOf = (chain: Chain) => ({ chain, engine: { touch() {} } }) as unknown as RpcContext
const UNKNOWN = `0x${'ab'.repeat(32)}`

describe('block access lists stored with their block', () => {
  it('keeps the sealed list, whose hash is the header’s, and another node importing the block keeps the same', async () => {
    const { chain, block } = await sealTransferAndCall({ amsterdamTime: 0 })
    const stored = chain.store.readBlockAccessList(block.hash())!
    expect(bytesToHex(keccak_256(stored))).toBe(bytesToHex(block.header.blockAccessListHash!))
    const other = await openMemoryChain(parseGenesisText(genesisText({ amsterdamTime: 0 }), 'g.json'))
    const again = createBlockFromBytesArray(block.raw() as never, { common: other.common, setHardfork: true })
    await importBlock(other, again, { setHead: true })
    expect(bytesToHex(other.store.readBlockAccessList(block.hash())!)).toBe(bytesToHex(stored))
    // The genesis executes nothing and stores no list.
    expect(chain.store.readBlockAccessList(chain.genesis.hash())).toBeUndefined()
  })

  it('stores nothing for a block of a fork before Amsterdam', async () => {
    const { chain, block } = await sealTransferAndCall({ pragueTime: 0, osakaTime: 0 })
    expect(block.header.blockAccessListHash).toBeUndefined()
    expect(chain.store.readBlockAccessList(block.hash())).toBeUndefined()
  })
})

describe('eth_getBlockAccessList and its siblings', () => {
  it('answers the list of a block by tag, number and hash, in the execution-apis shape', async () => {
    const { chain, block } = await sealTransferAndCall({ amsterdamTime: 0 })
    const ctx = contextOf(chain)
    const expected = blockAccessListJson(chain.store.readBlockAccessList(block.hash())!)
    const byTag = await call(ctx, getBlockAccessList, ['latest'])
    expect(byTag).toEqual(expected)
    expect(await call(ctx, getBlockAccessList, ['0x1'])).toEqual(expected)
    const canonical = { blockHash: bytesToHex(block.hash()), requireCanonical: true }
    expect(await call(ctx, getBlockAccessList, [canonical])).toEqual(expected)
    expect(await call(ctx, getBlockAccessListByBlockNumber, ['0x1'])).toEqual(expected)
    expect(await call(ctx, getBlockAccessListByBlockHash, [bytesToHex(block.hash())])).toEqual(expected)
    // The transfer of 5 wei (transaction 1) and the SSTORE of 0x2a at slot 1 (transaction 2).
    const entry = (a: string) => byTag.find((e: { address: string }) => e.address === a)
    expect(entry(RECIPIENT)).toEqual({
      address: RECIPIENT,
      storageChanges: [],
      storageReads: [],
      balanceChanges: [{ index: '0x1', value: '0x5' }],
      nonceChanges: [],
      codeChanges: [],
    })
    expect(entry(CONTRACT).storageChanges).toEqual([{ key: word(1), changes: [{ index: '0x2', value: word(0x2a) }] }])
    expect(entry(COINBASE).balanceChanges.map((c: { index: string }) => c.index)).toEqual(['0x1', '0x2'])
  })

  it("answers Besu's first method with the hash and the list in its first shape", async () => {
    const { chain, block } = await sealTransferAndCall({ amsterdamTime: 0 })
    const result = await call(contextOf(chain), getBlockAccessListByNumber, ['latest'])
    expect(result.balHash).toBe(bytesToHex(block.header.blockAccessListHash!))
    const recipient = result.blockAccessList.accountChanges.find((a: { address: string }) => a.address === RECIPIENT)
    expect(recipient).toEqual({ address: RECIPIENT, balanceChanges: [{ txIndex: 1, postBalance: word(5) }] })
    expect(await call(contextOf(chain), getBlockAccessListByNumber, ['0x0'])).toBeNull()
    expect(await call(contextOf(chain), getBlockAccessListByNumber, ['0x9'])).toBeNull()
  })

  it("refuses unknown blocks, blocks before Amsterdam and lists not stored with Besu's codes", async () => {
    const { chain } = await sealTransferAndCall({ amsterdamTime: 0 })
    const ctx = contextOf(chain)
    const notFound = { code: -32000, message: 'Block not found' }
    await expect(call(ctx, getBlockAccessList, ['0x9'])).rejects.toMatchObject(notFound)
    await expect(call(ctx, getBlockAccessList, [UNKNOWN])).rejects.toMatchObject(notFound)
    await expect(call(ctx, getBlockAccessList, [{ blockHash: UNKNOWN }])).rejects.toMatchObject(notFound)
    await expect(call(ctx, getBlockAccessListByBlockNumber, ['0x9'])).rejects.toMatchObject(notFound)
    await expect(call(ctx, getBlockAccessListByBlockHash, [UNKNOWN])).rejects.toMatchObject(notFound)
    await expect(call(ctx, getBlockAccessList, ['finalized'])).rejects.toMatchObject({ code: -39001 })
    // The genesis of an Amsterdam chain has no stored list.
    const pruned = { code: 4444, message: 'Pruned history unavailable' }
    await expect(call(ctx, getBlockAccessList, ['earliest'])).rejects.toMatchObject(pruned)
    await expect(call(ctx, getBlockAccessListByBlockNumber, ['0x0'])).rejects.toMatchObject(pruned)
    const osaka = await sealTransferAndCall({ pragueTime: 0, osakaTime: 0 })
    const before = { code: 4445, message: 'Block access list not available for pre-Amsterdam blocks' }
    await expect(call(contextOf(osaka.chain), getBlockAccessList, ['latest'])).rejects.toMatchObject(before)
    const hash = bytesToHex(osaka.block.hash())
    await expect(call(contextOf(osaka.chain), getBlockAccessListByBlockHash, [hash])).rejects.toMatchObject(before)
    expect(await call(contextOf(osaka.chain), getBlockAccessListByNumber, ['latest'])).toBeNull()
  })

  it("refuses malformed parameters with Besu's -32602 texts, and ignores extra ones as Besu does", async () => {
    const { chain } = await sealTransferAndCall({ amsterdamTime: 0 })
    const ctx = contextOf(chain)
    const badBlock = { code: -32602, message: 'Invalid block, unable to parse RLP' }
    await expect(call(ctx, getBlockAccessList, [])).rejects.toMatchObject(badBlock)
    await expect(call(ctx, getBlockAccessList, ['lates'])).rejects.toMatchObject(badBlock)
    await expect(call(ctx, getBlockAccessListByBlockHash, ['0x1234'])).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid block hash params',
    })
    await expect(call(ctx, getBlockAccessListByBlockNumber, [UNKNOWN])).rejects.toMatchObject(badBlock)
    expect(await call(ctx, getBlockAccessListByNumber, ['0x1', true])).toEqual(
      await call(ctx, getBlockAccessListByNumber, ['0x1']),
    )
  })
})

describe('engine_getPayloadBodiesByHashV2 / ByRangeV2', () => {
  it("adds the stored list's RLP to V1's body, null where none is stored", async () => {
    const { chain, block } = await sealTransferAndCall({ amsterdamTime: 0 })
    const ctx = contextOf(chain)
    const rlp = bytesToHex(chain.store.readBlockAccessList(block.hash())!)
    const [body, genesis, unknown] = await call(ctx, getPayloadBodiesByHashV2, [
      [bytesToHex(block.hash()), bytesToHex(chain.genesis.hash()), UNKNOWN],
    ])
    expect(body.blockAccessList).toBe(rlp)
    expect(body.transactions).toEqual(block.transactions.map((t) => bytesToHex(t.serialize())))
    expect(body.withdrawals).toEqual([])
    expect(genesis.blockAccessList).toBeNull()
    expect(unknown).toBeNull()
    expect(await call(ctx, getPayloadBodiesByRangeV2, ['0x1', '0x5'])).toEqual([body])
    await expect(call(ctx, getPayloadBodiesByRangeV2, ['0x0', '0x1'])).rejects.toMatchObject({ code: -32602 })
  })
})
