import { Address } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { STORE_RUNTIME, type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { devAccounts } from '../../chain/devAccounts.ts'
import { bytesToBigint, bytesToHex, hexToBytes, toQuantity } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { accountAt, accountRange } from './accountMethods.ts'
import { storageRangeAt } from './storageRangeAt.ts'

let t: TracingChain
let ctx: RpcContext
let store: string
let blockHash: string
let storeBlockHash: string
const RECIPIENT = '0x000000000000000000000000000000000000beef'

beforeAll(async () => {
  t = await tracingChain()
  ctx = rpcContext(t)
  store = await t.deploy(STORE_RUNTIME)
  await t.send({ to: store })
  storeBlockHash = bytesToHex(t.chain.head.hash())
  await t.send({ to: RECIPIENT, value: 7n })
  blockHash = bytesToHex(t.chain.head.hash())
})
afterAll(() => {
  ctx.filters.stop()
  t.close()
})

describe('debug_accountAt', () => {
  it('reads the sender as the first instruction sees it: nonce raised, gas limit paid for, value sent', async () => {
    const sender = devAccounts()[0].address
    const block = (await t.chain.getBlockByHash(hexToBytes(storeBlockHash)))!
    const parent = (await t.chain.getBlockByHash(block.header.parentHash))!
    const before = (await t.chain.stateAt(parent).getAccount(new Address(hexToBytes(sender))))!
    const price = block.header.baseFeePerGas! + 1n
    const out = await call(ctx, accountAt, [storeBlockHash, '0x0', sender])
    expect(out.nonce).toBe(toQuantity(before.nonce + 1n))
    // The whole gas limit (1,000,000) at the effective price, none of it refunded yet.
    expect(out.balance).toBe(toQuantity(before.balance - 1_000_000n * price))
    expect(out.code).toBe('0x0')
    expect(out.codehash).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')
  })

  it('reads the called contract with its code and code hash as quantities', async () => {
    const out = await call(ctx, accountAt, [storeBlockHash, '0x0', store])
    expect(out.code).toBe(`0x${STORE_RUNTIME}`)
    expect(out.nonce).toBe('0x1')
    expect(out.codehash).toBe(toQuantity(bytesToBigint(keccak_256(hexToBytes(`0x${STORE_RUNTIME}`)))))
  })

  it('refuses an index past the last transaction, a transaction that runs no code and an unknown block', async () => {
    // As Besu: past the count its transaction-params text; at the count its trace fails (-32603).
    await expect(call(ctx, accountAt, [blockHash, '0x2', RECIPIENT])).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid transaction params (missing or incorrect)',
    })
    await expect(call(ctx, accountAt, [blockHash, '0x1', RECIPIENT])).rejects.toMatchObject({ code: -32603 })
    const genesis = bytesToHex((await t.chain.getBlockByNumber(0n))!.hash())
    await expect(call(ctx, accountAt, [genesis, '0x0', RECIPIENT])).rejects.toMatchObject({ code: -32602 })
    // A plain transfer executes no instruction: Besu's trace has no frame to read an account from.
    await expect(call(ctx, accountAt, [blockHash, '0x0', RECIPIENT])).rejects.toMatchObject({
      code: -32000,
      message: 'Account not found',
    })
    await expect(call(ctx, accountAt, ['0x99', '0x0', RECIPIENT])).rejects.toMatchObject({ code: -32000 })
  })
})

describe('debug_accountRange', () => {
  it('reads a start key of any hex length as a left-padded hash, and an unknown block as an empty page', async () => {
    // Besu's Bytes32.fromHexStringLenient: `0x0` is the zero key, an address the key 0x00…address.
    const page = await call(ctx, accountRange, ['latest', '0x0', '0x0', 3])
    expect(page).toEqual(await call(ctx, accountRange, ['latest', '0x0', `0x${'00'.repeat(32)}`, 3]))
    const key = `0x${'00'.repeat(12)}${RECIPIENT.slice(2)}`
    expect(await call(ctx, accountRange, ['latest', '0x0', RECIPIENT, 3])).toEqual(
      await call(ctx, accountRange, ['latest', '0x0', key, 3]),
    )
    expect(await call(ctx, accountRange, ['0x99', '0x0', '0x0', 3])).toEqual({ addressMap: {}, nextKey: null })
    await expect(call(ctx, accountRange, ['latest', '0x0', `0x${'11'.repeat(33)}`, 3])).rejects.toMatchObject({
      code: -32602,
    })
  })

  it('pages through the hashed account keys in order', async () => {
    const first = await call(ctx, accountRange, ['latest', '0x0', '0x00', 2])
    const keys = Object.keys(first.addressMap)
    expect(keys).toHaveLength(2)
    expect([...keys].sort()).toEqual(keys)
    const next = await call(ctx, accountRange, ['latest', '0x0', first.nextKey, 100])
    const rest = Object.keys(next.addressMap)
    expect(rest[0]).toBe(first.nextKey)
    expect(rest[0] > keys[1]).toBe(true)
    expect(next.nextKey).toBe(`0x${'0'.repeat(64)}`)
    const hashed = bytesToHex(keccak_256(hexToBytes(RECIPIENT)))
    expect([...keys, ...rest]).toContain(hashed)
  })

  it('walks every account exactly once in pages, each nextKey the first key of the next page', async () => {
    const all = await call(ctx, accountRange, ['latest', '0x0', '0x00', 1000])
    expect(all.nextKey).toBe(`0x${'0'.repeat(64)}`)
    const everyKey = Object.keys(all.addressMap)
    expect(everyKey.length).toBeGreaterThan(6)
    const walked: string[] = []
    let start = '0x00'
    for (let page = 0; page < everyKey.length; page++) {
      const out = await call(ctx, accountRange, ['latest', '0x0', start, 3])
      const keys = Object.keys(out.addressMap)
      walked.push(...keys)
      if (out.nextKey === `0x${'0'.repeat(64)}`) break
      expect(keys).toHaveLength(3)
      expect(out.nextKey > keys[2]).toBe(true)
      start = out.nextKey
    }
    expect(walked).toEqual(everyKey)
    // Real addresses from the preimages: the recipient and the first dev account are listed as such.
    expect(Object.values(all.addressMap)).toContain(RECIPIENT)
    expect(Object.values(all.addressMap)).toContain(devAccounts()[0].address.toLowerCase())
  })

  it('reads the state after the whole block, whatever the transaction index, as Besu', async () => {
    const first = '0x000000000000000000000000000000000000f001'
    const second = '0x000000000000000000000000000000000000f002'
    await t.sendBlock([
      { to: first, value: 1n },
      { to: second, value: 1n },
    ])
    const hashed = bytesToHex(keccak_256(hexToBytes(second)))
    const head = bytesToHex(t.chain.head.hash())
    for (const index of ['0x0', '0x1', '0x7']) {
      const page = await call(ctx, accountRange, [head, index, hashed, 1])
      expect(page.addressMap).toEqual({ [hashed]: second })
    }
  })

  it('leaves out an account created by a later transaction when read before it', async () => {
    const hashed = bytesToHex(keccak_256(hexToBytes(RECIPIENT)))
    const before = await call(ctx, accountRange, ['0x2', '0x0', hashed, 1])
    expect(Object.keys(before.addressMap)[0]).not.toBe(hashed)
    const after = await call(ctx, accountRange, ['0x3', '0x0', hashed, 1])
    expect(Object.keys(after.addressMap)[0]).toBe(hashed)
  })
})

describe('preimages', () => {
  it('shows every account of the range with its real address, genesis alloc included', async () => {
    const all = await call(ctx, accountRange, ['latest', '0x0', '0x00', 1000])
    for (const [hashed, address] of Object.entries(all.addressMap as Record<string, string>)) {
      expect(bytesToHex(keccak_256(hexToBytes(address as `0x${string}`))) as string).toBe(hashed)
    }
    const addresses: string[] = Object.values(all.addressMap)
    expect(addresses).toContain(RECIPIENT)
    expect(addresses).toContain(store)
    expect(addresses).toContain(t.sender.toLowerCase())
    // A dev account of the genesis alloc that no transaction touched.
    expect(addresses).toContain(devAccounts()[5].address.toLowerCase())
  })

  it('gives debug_storageRangeAt the slot behind each hashed key', async () => {
    const out = await call(ctx, storageRangeAt, [storeBlockHash, '0x0', store, '0x00', 10])
    const slot0 = `0x${'0'.repeat(64)}`
    expect(out.storage).toEqual({
      [bytesToHex(keccak_256(hexToBytes(slot0)))]: { key: slot0, value: `0x${'2a'.padStart(64, '0')}` },
    })
  })

  it('reads the start key of debug_storageRangeAt leniently, as Besu: 0x, 0x0 and a full zero hash alike', async () => {
    const full = await call(ctx, storageRangeAt, [storeBlockHash, '0x0', store, `0x${'00'.repeat(32)}`, 10])
    expect(Object.keys(full.storage)).toHaveLength(1)
    for (const key of ['0x', '0x0', '0x00'])
      expect(await call(ctx, storageRangeAt, [storeBlockHash, '0x0', store, key, 10])).toEqual(full)
    await expect(
      call(ctx, storageRangeAt, [storeBlockHash, '0x0', store, `0x${'11'.repeat(33)}`, 10]),
    ).rejects.toMatchObject({ code: -32602 })
  })

  it("reads debug_storageRangeAt's block as Besu: by number too, the block's start past its transactions, an unknown one empty", async () => {
    const block = (await t.chain.getBlockByHash(hexToBytes(storeBlockHash)))!
    const byHash = await call(ctx, storageRangeAt, [storeBlockHash, '0x0', store, '0x00', 10])
    expect(Object.keys(byHash.storage)).toHaveLength(1)
    expect(await call(ctx, storageRangeAt, [toQuantity(block.header.number), '0x0', store, '0x00', 10])).toEqual(byHash)
    // Past the block's one transaction: the state the block starts from, before the store wrote.
    const empty = { storage: {}, nextKey: null }
    expect(await call(ctx, storageRangeAt, [storeBlockHash, '0x5', store, '0x00', 10])).toEqual(empty)
    // The next block starts where this one ended.
    expect(await call(ctx, storageRangeAt, [blockHash, '0x5', store, '0x00', 10])).toEqual(byHash)
    for (const unknown of [`0x${'11'.repeat(32)}`, '0xffff', { blockHash: `0x${'22'.repeat(32)}` }])
      expect(await call(ctx, storageRangeAt, [unknown, '0x0', store, '0x00', 10])).toEqual(empty)
  })

  it('prints each value as one 32-byte word, whatever its length in the trie', async () => {
    // PUSH32 0xff…ff, PUSH1 7, SSTORE, PUSH2 0x0100, PUSH1 8, SSTORE, STOP
    const writer = await t.deploy(`7f${'ff'.repeat(32)}600755610100600855` + '00')
    await t.send({ to: writer })
    const out = await call(ctx, storageRangeAt, [bytesToHex(t.chain.head.hash()), '0x0', writer, '0x00', 10])
    const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
    const byKey = Object.fromEntries(
      Object.values(out.storage as Record<string, { key: string; value: string }>).map((e) => [e.key, e.value]),
    )
    expect(byKey).toEqual({ [word(7)]: `0x${'ff'.repeat(32)}`, [word(8)]: word(0x100) })
  })
})
