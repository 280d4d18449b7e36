import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { Account, createAddressFromString, KECCAK256_RLP } from '@ethereumjs/util'
import { keccak_256 as keccak256 } from '@noble/hashes/sha3.js'
import { bytesToHex, hexToBytes, padHex } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { MemoryForkCache } from '../storage/forkCache.ts'
import { migrate } from '../storage/schema.ts'
import { openSqlite } from '../storage/sqlite.ts'
import { CachedForkSource, ForkRemoteError, type RemoteCall } from './forkSource.ts'
import { TrieDb } from './trieDb.ts'
import { openState } from './worldState.ts'

const CONTRACT = '0x00000000000000000000000000000000000000c0'
const HOLDER = '0x00000000000000000000000000000000000000a1'
const CODE = '0x6001600055'
const slot = (n: number) => hexToBytes(padHex(n.toString(16), 32))

/** A remote with one contract (two slots set) and one funded account, counting the calls it answers. */
function fakeRemote(): { call: RemoteCall; calls: string[] } {
  const calls: string[] = []
  const call: RemoteCall = async (method, params) => {
    calls.push(method)
    const address = String(params[0]).toLowerCase()
    if (method === 'eth_getProof') {
      if (address === CONTRACT)
        return {
          nonce: '0x1',
          balance: '0x5',
          codeHash: bytesToHex(keccak256(hexToBytes(CODE))),
          storageHash: `0x${'11'.repeat(32)}`,
        }
      if (address === HOLDER)
        return {
          nonce: '0x7',
          balance: '0xde0b6b3a7640000',
          codeHash: bytesToHex(keccak256(new Uint8Array())),
          storageHash: bytesToHex(KECCAK256_RLP),
        }
      return {
        // As some nodes answer for an account that does not exist.
        nonce: '0x0',
        balance: '0x0',
        codeHash: `0x${'00'.repeat(32)}`,
        storageHash: `0x${'00'.repeat(32)}`,
      }
    }
    if (method === 'eth_getCode') return address === CONTRACT ? CODE : '0x'
    if (method === 'eth_getStorageAt') {
      const n = BigInt(String(params[1]))
      return padHex(n === 1n ? '2a' : n === 2n ? '07' : '0', 32)
    }
    throw new Error(`unexpected ${method}`)
  }
  return { call, calls }
}

async function setup(remote: RemoteCall, cache = new MemoryForkCache()) {
  const db = await openSqlite(':memory:')
  migrate(db, true)
  const trieDb = new TrieDb(new ChainStore(db))
  trieDb.fork = new CachedForkSource(remote, cache, new Uint8Array(32).fill(9), 100n)
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
  return { trieDb, common, open: (root: Uint8Array, isWriter = true) => openState(trieDb, common, root, isWriter) }
}

describe('forked state', () => {
  it('reads accounts, code and storage from the remote once, then from the cache', async () => {
    const { call, calls } = fakeRemote()
    const cache = new MemoryForkCache()
    const { open } = await setup(call, cache)
    const state = open(KECCAK256_RLP, false)
    const contract = createAddressFromString(CONTRACT)
    expect((await state.getAccount(createAddressFromString(HOLDER)))?.nonce).toBe(7n)
    expect(bytesToHex(await state.getCode(contract))).toBe(CODE)
    expect(bytesToHex(await state.getStorage(contract, slot(1)))).toBe('0x2a')
    expect(
      await state.getAccount(createAddressFromString('0x00000000000000000000000000000000000000ee')),
    ).toBeUndefined()
    const asked = calls.length
    expect(asked).toBe(5)
    // A second chain on the same cache (a restart) asks nothing.
    const again = (await setup(async () => Promise.reject(new Error('offline')), cache)).open(KECCAK256_RLP, false)
    expect(bytesToHex(await again.getStorage(contract, slot(1)))).toBe('0x2a')
    expect(bytesToHex(await again.getCode(contract))).toBe(CODE)
    expect(calls.length).toBe(asked)
  })

  it('keeps local writes, zeroed slots and deletions local, with the same root on a replay', async () => {
    const { call } = fakeRemote()
    const { open } = await setup(call)
    const contract = createAddressFromString(CONTRACT)
    const holder = createAddressFromString(HOLDER)
    async function edit(): Promise<Uint8Array> {
      const state = open(KECCAK256_RLP)
      await state.checkpoint()
      const acc = (await state.getAccount(holder))!
      acc.balance -= 1n
      await state.putAccount(holder, acc)
      await state.putStorage(contract, slot(1), new Uint8Array())
      await state.putStorage(contract, slot(3), Uint8Array.of(9))
      await state.deleteAccount(createAddressFromString('0x00000000000000000000000000000000000000a1'))
      await state.putAccount(holder, new Account(0n, 1n))
      await state.commit()
      return state.getStateRoot()
    }
    const root = await edit()
    expect(bytesToHex(await edit())).toBe(bytesToHex(root))
    const after = open(root, false)
    expect(bytesToHex(await after.getStorage(contract, slot(1)))).not.toBe('0x2a')
    expect(BigInt(bytesToHex(await after.getStorage(contract, slot(1))))).toBe(0n)
    expect(bytesToHex(await after.getStorage(contract, slot(2)))).toBe('0x07')
    expect(bytesToHex(await after.getStorage(contract, slot(3)))).toBe('0x09')
    expect((await after.getAccount(holder))?.balance).toBe(1n)
    // The state at the fork block itself is unchanged.
    expect(bytesToHex(await open(KECCAK256_RLP, false).getStorage(contract, slot(1)))).toBe('0x2a')
  })

  it('does not bring a deleted account or its storage back from the remote', async () => {
    const { call } = fakeRemote()
    const { open } = await setup(call)
    const contract = createAddressFromString(CONTRACT)
    const state = open(KECCAK256_RLP)
    await state.getStorage(contract, slot(1))
    await state.deleteAccount(contract)
    const root = await state.getStateRoot()
    const after = open(root, false)
    expect(await after.getAccount(contract)).toBeUndefined()
    expect((await after.getCode(contract)).length).toBe(0)
    // Created again (CREATE2 after a self-destruct): its old storage stays gone.
    const again = open(root)
    await again.putAccount(contract, new Account(1n, 0n))
    const root2 = await again.getStateRoot()
    expect((await open(root2, false).getStorage(contract, slot(2))).length).toBe(0)
  })

  it('reads accounts of a remote without eth_getProof through balance, nonce and code', async () => {
    const { call, calls } = fakeRemote()
    const { open } = await setup(async (method, params) => {
      if (method === 'eth_getProof') throw new ForkRemoteError('fork remote refused eth_getProof', -32601)
      if (method === 'eth_getBalance') return String(params[0]) === CONTRACT ? '0x5' : '0x0'
      if (method === 'eth_getTransactionCount') return String(params[0]) === CONTRACT ? '0x1' : '0x0'
      return call(method, params)
    })
    const state = open(KECCAK256_RLP, false)
    const contract = createAddressFromString(CONTRACT)
    expect((await state.getAccount(contract))?.balance).toBe(5n)
    expect(bytesToHex(await state.getCode(contract))).toBe(CODE)
    expect(bytesToHex(await state.getStorage(contract, slot(2)))).toBe('0x07')
    expect(calls).toEqual(['eth_getCode', 'eth_getStorageAt'])
  })

  it('fails with a ForkRemoteError naming the call when the remote fails', async () => {
    const { open } = await setup(async () => {
      throw new ForkRemoteError('fork remote http://127.0.0.1:1 failed on eth_getProof: refused')
    })
    expect(open(KECCAK256_RLP, false).getAccount(createAddressFromString(HOLDER))).rejects.toThrow(/eth_getProof/)
  })
})
