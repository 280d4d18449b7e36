import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Account, Address } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import type { Chain } from '../chain/chain.ts'
import { sealTransfers } from '../node/testChain.ts'
import { bytesToBigint, bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { afterEach, describe, expect, it } from '../runtime/testing.ts'
import { openState } from '../state/worldState.ts'
import type { FlatStore } from '../storage/flatStore.ts'
import { call } from './callService.ts'
import { openScratchState } from './scratchState.ts'
import { OverlayTrieDb } from './tracers/overlayTrieDb.ts'

const dirs: string[] = []
const restores: (() => void)[] = []
afterEach(() => {
  for (const r of restores.splice(0)) r()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'basalt-scratch-'))
  dirs.push(d)
  return d
}

const BONSAI = { dataStorageFormat: 'BONSAI' as const, bonsaiHistoricalBlockLimit: 8 }
const FOREST = { dataStorageFormat: 'FOREST' as const }
/** EIP-2935's history contract: every block stores its parent's hash at slot (number - 1) % 8191. */
const HISTORY = new Address(hexToBytes('0x0000f90827f1c53a10cb7a02335b175320002935'))
const CONTRACT = new Address(hexToBytes('0x00000000000000000000000000000000c0ffee01'))
/** Returns 42 as one word. */
const RETURN_42 = hexToBytes('0x602a60005260206000f3')
const WEI_PER_TRANSFER = 1000n

const slot = (n: bigint) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)

/** Counts the flat-table reads of `chain` from now on. */
function countFlatReads(chain: Chain): { accounts: number; slots: number } {
  const flat = chain.bonsai!.flat as FlatStore
  const counts = { accounts: 0, slots: 0 }
  const { readAccount, readSlot } = flat
  flat.readAccount = (key) => {
    counts.accounts++
    return readAccount.call(flat, key)
  }
  flat.readSlot = (account, key) => {
    counts.slots++
    return readSlot.call(flat, account, key)
  }
  restores.push(() => {
    flat.readAccount = readAccount
    flat.readSlot = readSlot
  })
  return counts
}

/** The state after the head, read from the trie alone. */
function trieState(chain: Chain) {
  return openState(chain.trieDb, chain.common, chain.postStateRoot(chain.head))
}

describe('scratch state on the BONSAI flat head state', () => {
  it('reads accounts and slots from the flat tables, equal to the trie', async () => {
    const { chain, recipient, close } = await sealTransfers(tempDir(), 3, 1, BONSAI)
    const reads = countFlatReads(chain)
    const state = openScratchState(chain, chain.postStateRoot(chain.head))
    expect((await state.getAccount(recipient))?.balance).toBe(3n * WEI_PER_TRANSFER)
    const stored = await state.getStorage(HISTORY, slot(1n))
    expect(bytesToHex(stored)).toBe(bytesToHex((await chain.getBlockByNumber(1n))!.hash()))
    expect(bytesToHex(stored)).toBe(bytesToHex(await trieState(chain).getStorage(HISTORY, slot(1n))))
    expect(bytesToHex(await state.getCode(HISTORY))).toBe(bytesToHex(await trieState(chain).getCode(HISTORY)))
    expect(reads.accounts).toBeGreaterThan(0)
    expect(reads.slots).toBe(1)
    close()
  })

  it('keeps its writes out of the flat tables and the pending trie writes, and reads them back', async () => {
    const { chain, recipient, close } = await sealTransfers(tempDir(), 3, 1, BONSAI)
    const flat = chain.bonsai!.flat
    const accountKey = keccak_256(recipient.bytes)
    const flatBefore = bytesToHex(flat.readAccount(accountKey)!)
    const pendingBefore = chain.trieDb.pendingCount
    const state = openScratchState(chain, chain.postStateRoot(chain.head))
    await state.checkpoint()
    const account = (await state.getAccount(recipient))!
    account.balance = 5n
    await state.putAccount(recipient, account)
    await state.putStorage(HISTORY, slot(1n), hexToBytes('0x07'))
    await state.putCode(CONTRACT, RETURN_42)
    expect(bytesToBigint(await state.getStorage(HISTORY, slot(1n)))).toBe(7n)
    // The outermost commit flushes the caches into the scratch state's own trie.
    await state.commit()
    expect((await state.getAccount(recipient))?.balance).toBe(5n)
    expect(bytesToBigint(await state.getStorage(HISTORY, slot(1n)))).toBe(7n)
    expect(bytesToHex(await state.getCode(CONTRACT))).toBe(bytesToHex(RETURN_42))
    expect(bytesToHex(flat.readAccount(accountKey)!)).toBe(flatBefore)
    expect(flat.readAccount(keccak_256(CONTRACT.bytes))).toBeUndefined()
    expect(chain.trieDb.pendingCount).toBe(pendingBefore)
    expect((await chain.stateAt(chain.head).getAccount(recipient))?.balance).toBe(3n * WEI_PER_TRANSFER)
    expect(bytesToHex(await chain.stateAt(chain.head).getStorage(HISTORY, slot(1n)))).toBe(
      bytesToHex((await chain.getBlockByNumber(1n))!.hash()),
    )
    close()
  })

  it('reads a cleared, deleted or re-created account storage from its own trie, not the flat slots', async () => {
    const { chain, close } = await sealTransfers(tempDir(), 3, 1, BONSAI)
    const state = openScratchState(chain, chain.postStateRoot(chain.head))
    const hash1 = bytesToHex((await chain.getBlockByNumber(1n))!.hash())
    await state.checkpoint()
    await state.clearStorage(HISTORY)
    expect((await state.getStorage(HISTORY, slot(1n))).length).toBe(0)
    await state.revert()
    // The revert brings the account (and its flat storage root) back.
    expect(bytesToHex(await state.getStorage(HISTORY, slot(1n)))).toBe(hash1)
    await state.checkpoint()
    await state.deleteAccount(HISTORY)
    expect((await state.getStorage(HISTORY, slot(1n))).length).toBe(0)
    await state.putAccount(HISTORY, new Account())
    expect((await state.getStorage(HISTORY, slot(1n))).length).toBe(0)
    await state.revert()
    expect(bytesToHex(await state.getStorage(HISTORY, slot(1n)))).toBe(hash1)
    close()
  })

  it('keeps the state it was opened on after the head moves on', async () => {
    const { chain, recipient, sealMore, close } = await sealTransfers(tempDir(), 3, 1, BONSAI)
    const state = openScratchState(chain, chain.postStateRoot(chain.head))
    await sealMore(1)
    // Block 4 stored block 3's hash at slot 3 and paid the recipient again; the flat tables hold that now.
    expect(chain.bonsai!.flat.readSlot(keccak_256(HISTORY.bytes), keccak_256(slot(3n)))).toBeDefined()
    const reads = countFlatReads(chain)
    expect((await state.getAccount(recipient))?.balance).toBe(3n * WEI_PER_TRANSFER)
    expect((await state.getStorage(HISTORY, slot(3n))).length).toBe(0)
    expect(reads.accounts + reads.slots).toBe(0)
    close()
  })

  it('hands out its own copy of each account and flushes the root a trie state reaches', async () => {
    const { chain, recipient, close } = await sealTransfers(tempDir(), 3, 1, BONSAI)
    const root = chain.postStateRoot(chain.head)
    const flatState = openScratchState(chain, root)
    const trieOnly = openState(new OverlayTrieDb(chain.trieDb), chain.common, root, true)
    const missing = new Address(hexToBytes('0x00000000000000000000000000000000000bad01'))
    for (const state of [flatState, trieOnly]) {
      const read = (await state.getAccount(recipient))!
      read.balance = 1n
      read.nonce = 9n
      expect((await state.getAccount(recipient))?.balance).toBe(3n * WEI_PER_TRANSFER)
      expect(await state.getAccount(missing)).toBeUndefined()
      await state.checkpoint()
      const written = (await state.getAccount(recipient))!
      written.balance = 5n
      written.nonce = 7n
      await state.putAccount(recipient, written)
      // The cache keeps the account as it was put, not the caller's object.
      written.balance = 11n
      const again = (await state.getAccount(recipient))!
      expect([again.balance, again.nonce]).toEqual([5n, 7n])
      again.balance = 13n
      expect((await state.getAccount(recipient))?.balance).toBe(5n)
      await state.putAccount(missing, new Account(1n, 2n))
      await state.checkpoint()
      await state.putAccount(recipient, new Account(8n, 8n))
      await state.revert()
      expect((await state.getAccount(recipient))?.balance).toBe(5n)
      await state.commit()
      expect((await state.getAccount(missing))?.balance).toBe(2n)
    }
    expect(bytesToHex(await flatState.getStateRoot())).toBe(bytesToHex(await trieOnly.getStateRoot()))
    expect(bytesToHex(await flatState.getStateRoot())).not.toBe(bytesToHex(root))
    close()
  })

  it('reads an older block and a FOREST chain from the trie', async () => {
    const bonsai = await sealTransfers(tempDir(), 3, 1, BONSAI)
    const reads = countFlatReads(bonsai.chain)
    const parent = (await bonsai.chain.getBlockByNumber(2n))!
    const older = openScratchState(bonsai.chain, parent.header.stateRoot)
    expect((await older.getAccount(bonsai.recipient))?.balance).toBe(2n * WEI_PER_TRANSFER)
    expect((await older.getStorage(HISTORY, slot(2n))).length).toBe(0)
    expect(reads.accounts + reads.slots).toBe(0)
    bonsai.close()
    const forest = await sealTransfers(tempDir(), 3, 1, FOREST)
    expect(forest.chain.bonsai).toBeUndefined()
    const head = openScratchState(forest.chain, forest.chain.postStateRoot(forest.chain.head))
    expect((await head.getAccount(forest.recipient))?.balance).toBe(3n * WEI_PER_TRANSFER)
    forest.close()
  })
})

describe('call on the BONSAI flat head state', () => {
  /** eth_call of the history contract's `get` for block `n`: its hash, or a revert outside the window. */
  const history = (chain: Chain, n: bigint) =>
    call(chain, chain.head, { to: HISTORY.bytes, data: slot(n) }, { gasCap: 0n })

  it('sees the head after a rollback and forward again', async () => {
    const { chain, close } = await sealTransfers(tempDir(), 4, 1, BONSAI)
    const tip = chain.head
    const hash3 = bytesToHex((await chain.getBlockByNumber(3n))!.hash())
    expect(bytesToHex((await history(chain, 3n)).returnData)).toBe(hash3)
    await chain.exclusive(async () => chain.resetHead((await chain.getBlockByNumber(2n))!))
    // At block 2, block 3 is in the future: the contract reverts.
    expect((await history(chain, 3n)).isRevert).toBe(true)
    expect(bytesToHex((await history(chain, 1n)).returnData)).toBe(
      bytesToHex((await chain.getBlockByNumber(1n))!.hash()),
    )
    await chain.exclusive(() => chain.resetHead(tip))
    expect(bytesToHex((await history(chain, 3n)).returnData)).toBe(hash3)
    close()
  })

  it('sees a dev-tools edit of the head state, and state overrides over the flat slots', async () => {
    const { chain, close } = await sealTransfers(tempDir(), 3, 1, BONSAI)
    const plain = () => call(chain, chain.head, { to: CONTRACT.bytes }, { gasCap: 0n })
    expect((await plain()).returnData.length).toBe(0)
    const edit = openState(chain.trieDb, chain.common, chain.postStateRoot(chain.head), true)
    await edit.putCode(CONTRACT, RETURN_42)
    chain.setPostStateRoot(chain.head, await edit.getStateRoot())
    expect(bytesToBigint((await plain()).returnData)).toBe(42n)
    // `state` replaces the whole storage: slot 1's flat value must not show through.
    const cleared = await call(
      chain,
      chain.head,
      { to: HISTORY.bytes, data: slot(1n) },
      { gasCap: 0n, stateOverrides: [[HISTORY.bytes, { state: [[slot(2n), slot(9n)]] }]] },
    )
    expect(bytesToBigint(cleared.returnData)).toBe(0n)
    const diff = await call(
      chain,
      chain.head,
      { to: HISTORY.bytes, data: slot(1n) },
      { gasCap: 0n, stateOverrides: [[HISTORY.bytes, { stateDiff: [[slot(2n), slot(9n)]] }]] },
    )
    expect(bytesToHex(diff.returnData)).toBe(bytesToHex((await chain.getBlockByNumber(1n))!.hash()))
    close()
  })
})
