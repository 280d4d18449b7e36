import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Block } from '@ethereumjs/block'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { getMerkleStateProof } from '@ethereumjs/statemanager'
import { type Account, Address, createAccountFromRLP, KECCAK256_RLP } from '@ethereumjs/util'
import { importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { devAccounts } from '../chain/devAccounts.ts'
import { rebuildHeadState } from '../chain/stateRecovery.ts'
import { openChain } from '../node/node.ts'
import { sealTransfers } from '../node/testChain.ts'
import { bytesToBigint, bytesToHex } from '../primitives/hex.ts'
import { afterEach, describe, expect, it } from '../runtime/testing.ts'
import { StateUnavailableError } from './bonsaiState.ts'
import { computeTrieLog } from './trieLog.ts'
import { openState } from './worldState.ts'

interface TrieInternals {
  _trie: MerklePatriciaTrie
  _getStorageTrie(hashedAddress: Uint8Array, account: Account): MerklePatriciaTrie
}
type LeafKey = { key(): number[] }

const nibblesToBytes = (nibbles: number[]) =>
  Uint8Array.from({ length: nibbles.length / 2 }, (_, i) => nibbles[2 * i] * 16 + nibbles[2 * i + 1])

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'basalt-bonsai-'))
  dirs.push(d)
  return d
}

/** Plain BONSAI (no state history): the states below the window are gone. */
const BONSAI = { dataStorageFormat: 'BONSAI' as const, bonsaiHistoricalBlockLimit: 4, isBonsaiArchive: false }
const sender = new Address(Buffer.from(devAccounts()[0].address.slice(2), 'hex'))
const WEI_PER_TRANSFER = 1000n

/**
 * Every row of the flat head state equals the trie of `root`, account by account and slot by slot:
 * read through the flat store (rows held since the last flush first), then from the tables alone
 * after a flush, whose row counts must be the trie's.
 */
async function expectFlatMatchesTrie(chain: Chain, root: Uint8Array): Promise<void> {
  const bonsai = chain.bonsai!
  expect(bytesToHex(bonsai.root!)).toBe(bytesToHex(root))
  const state = openState(chain.trieDb, chain.common, root) as unknown as TrieInternals
  const fullKey = (nibbles: number[], node: unknown) => nibblesToBytes([...nibbles, ...(node as LeafKey).key()])
  const accounts: [Uint8Array, Uint8Array][] = []
  await state._trie.walkAllValueNodes(async (node, nibbles) => {
    accounts.push([fullKey(nibbles, node), node.value() ?? new Uint8Array()])
  })
  let slots = 0
  for (const isFlushed of [false, true]) {
    if (isFlushed) {
      chain.flushState()
      expect(bonsai.flat.isHolding).toBe(false)
    }
    slots = 0
    for (const [key, value] of accounts) {
      expect(bytesToHex(bonsai.flat.readAccount(key) ?? new Uint8Array())).toBe(bytesToHex(value))
      const storage = state._getStorageTrie(key, createAccountFromRLP(value))
      await storage.walkAllValueNodes(async (node, nibbles) => {
        slots++
        const slot = bonsai.flat.readSlot(key, fullKey(nibbles, node))
        expect(bytesToHex(slot ?? new Uint8Array())).toBe(bytesToHex(node.value() ?? new Uint8Array()))
      })
    }
  }
  expect(bytesToHex(chain.store.readMeta('flatRoot')!)).toBe(bytesToHex(root))
  expect(bonsai.flat.countAccounts()).toBe(accounts.length)
  expect(slots).toBeGreaterThan(0)
  expect(Number(chain.store.db.prepare('SELECT COUNT(*) AS n FROM flat_storage').get()?.n)).toBe(slots)
}

async function balanceAt(chain: Chain, block: Block, address: Address): Promise<bigint> {
  return (await chain.stateAt(block).getAccount(address))?.balance ?? 0n
}

describe('BONSAI state storage', () => {
  it('keeps the flat head state equal to the trie, block after block', async () => {
    const { chain, recipient, close } = await sealTransfers(tempDir(), 6, 2, BONSAI)
    await expectFlatMatchesTrie(chain, chain.head.header.stateRoot)
    expect(await balanceAt(chain, chain.head, recipient)).toBe(12n * WEI_PER_TRANSFER)
    // The head view reads the flat tables; a system contract's storage (EIP-4788 ring buffer) too.
    const beaconRoots = new Address(Buffer.from('000F3df6D732807Ef1319fB7B8bB8522d0Beac02', 'hex'))
    // The slot of the head's timestamp holds that timestamp.
    const slot = new Uint8Array(32)
    new DataView(slot.buffer).setBigUint64(24, chain.head.header.timestamp % 8191n)
    const flatValue = await chain.stateAt(chain.head).getStorage(beaconRoots, slot)
    const trieValue = await openState(chain.trieDb, chain.common, chain.head.header.stateRoot).getStorage(
      beaconRoots,
      slot,
    )
    expect(bytesToHex(flatValue)).toBe(bytesToHex(trieValue))
    expect(bytesToBigint(flatValue)).toBe(chain.head.header.timestamp)
    close()
  })

  it("stores exactly the head state's trie nodes and those the window still needs", async () => {
    const { chain, close } = await sealTransfers(tempDir(), 40, 2, BONSAI)
    chain.flushState()
    const count = (sql: string) => Number(chain.store.db.prepare(sql).get()?.n)
    // Nodes the states between a block's transactions held are never written; code rows aside.
    const nodes = count(
      "SELECT COUNT(*) AS n FROM trie_nodes WHERE NOT (length(key) = 33 AND substr(key, 1, 1) = x'63')",
    )
    const live = computeTrieLog((hex) => chain.trieDb.getSync(hex), KECCAK256_RLP, chain.head.header.stateRoot)
    expect(nodes).toBe(live.created.length + count('SELECT COUNT(*) AS n FROM stale_nodes'))
    close()
  })

  it('prunes the nodes of blocks imported off the canonical chain once they leave the window', async () => {
    const { chain, sealMore, close } = await sealTransfers(tempDir(), 2, 1, BONSAI)
    // Another node's chain from the same genesis, moving 7 wei a block: three blocks that this
    // chain stores and executes without ever making them the head (a payload no forkchoice chose).
    const other = await sealTransfers(tempDir(), 0, 1, BONSAI)
    await other.sealMore(3, 7n)
    for (let n = 1n; n <= 3n; n++) {
      const block = (await other.chain.getBlockByNumber(n))!
      await importBlock(chain, block, { setHead: false })
    }
    other.close()
    chain.flushState()
    const count = (sql: string) => Number(chain.store.db.prepare(sql).get()?.n)
    const nodes = () =>
      count("SELECT COUNT(*) AS n FROM trie_nodes WHERE NOT (length(key) = 33 AND substr(key, 1, 1) = x'63')")
    const live = () =>
      computeTrieLog((hex) => chain.trieDb.getSync(hex), KECCAK256_RLP, chain.head.header.stateRoot).created.length
    const staleCount = () => count('SELECT COUNT(*) AS n FROM stale_nodes')
    // The side blocks' nodes are stored beside the canonical ones…
    expect(nodes()).toBeGreaterThan(live() + staleCount())
    // …until the window has moved past them: then only the head's and the window's remain.
    await sealMore(12)
    chain.flushState()
    expect(chain.bonsai!.flat.countTrieLogs()).toBeLessThan(12)
    expect(nodes()).toBe(live() + staleCount())
    // The states inside the window still read whole, proofs included.
    const oldest = (await chain.getBlockByNumber(chain.head.header.number - 4n))!
    await expectFlatMatchesTrie(chain, chain.head.header.stateRoot)
    const proof = await getMerkleStateProof(chain.stateAt(oldest), sender)
    expect(proof.nonce).toBe(`0x${(oldest.header.number).toString(16)}`)
    close()
  })

  it('answers the states inside the history window and refuses older ones', async () => {
    const { chain, recipient, close } = await sealTransfers(tempDir(), 10, 1, BONSAI)
    const head = chain.head.header.number
    const oldest = await chain.getBlockByNumber(head - 4n)
    expect(await balanceAt(chain, oldest!, recipient)).toBe(6n * WEI_PER_TRANSFER)
    const proof = await getMerkleStateProof(chain.stateAt(oldest!), recipient)
    expect(proof.balance).toBe(`0x${(6n * WEI_PER_TRANSFER).toString(16)}`)
    const older = await chain.getBlockByNumber(head - 5n)
    expect(() => chain.stateAt(older!)).toThrow(StateUnavailableError)
    // Pruned: the trie nodes of a state far outside the window are gone, the window's are there.
    chain.flushState()
    const root = (await chain.getBlockByNumber(2n))!.header.stateRoot
    expect(chain.store.readTrieNode(root)).toBeUndefined()
    expect(chain.store.readTrieNode(oldest!.header.stateRoot)).toBeDefined()
    // Trie logs are kept for the window only, deleted in batches of 4 blocks: the last batch went
    // at block 8 (those of blocks 1-4), so those of blocks 5-10 remain.
    expect(chain.bonsai!.flat.countTrieLogs()).toBe(6)
    close()
  })

  it('rolls the flat state back and forth with the head, and builds on the state it rolled back to', async () => {
    const dataPath = tempDir()
    const { chain, recipient, close } = await sealTransfers(dataPath, 6, 1, BONSAI)
    const tip = chain.head
    const target = (await chain.getBlockByNumber(3n))!
    await chain.exclusive(() => chain.resetHead(target))
    await expectFlatMatchesTrie(chain, target.header.stateRoot)
    expect(await balanceAt(chain, chain.head, recipient)).toBe(3n * WEI_PER_TRANSFER)
    // Forward again to the old tip (now off the canonical chain), then back to 3. A move forward
    // holds its flat rows: until the flush the state counts as unwritten for other connections.
    chain.flushState()
    await chain.exclusive(() => chain.resetHead(tip))
    expect(chain.bonsai!.isFlatHeld).toBe(true)
    expect(chain.isStateWritten).toBe(false)
    expect(bytesToHex(chain.store.readMeta('flatRoot')!)).toBe(bytesToHex(target.header.stateRoot))
    await expectFlatMatchesTrie(chain, tip.header.stateRoot)
    expect(chain.isStateWritten).toBe(true)
    await chain.exclusive(() => chain.resetHead(target))
    close()
    // Reopened: the flat state and its root survived; new blocks build on block 3's state.
    const reopened = await sealTransfers(dataPath, 0, 1, BONSAI)
    expect(reopened.chain.head.header.number).toBe(3n)
    await expectFlatMatchesTrie(reopened.chain, target.header.stateRoot)
    await reopened.sealMore(2)
    expect(reopened.chain.head.header.number).toBe(5n)
    await expectFlatMatchesTrie(reopened.chain, reopened.chain.head.header.stateRoot)
    expect(await balanceAt(reopened.chain, reopened.chain.head, recipient)).toBe(5n * WEI_PER_TRANSFER)
    reopened.close()
  })

  it('moves the flat state across branches: undoes one back to the fork point, applies the other', async () => {
    const { chain, recipient, sealMore, close } = await sealTransfers(tempDir(), 3, 1, BONSAI)
    const oldTip = chain.head
    await chain.exclusive(async () => chain.resetHead((await chain.getBlockByNumber(1n))!))
    // A branch of three blocks on block 1 that move 7 wei each instead.
    await sealMore(3, 7n)
    const newTip = chain.head
    expect(newTip.header.number).toBe(4n)
    expect(chain.isCanonical((await chain.getBlockByHash(oldTip.header.parentHash))!)).toBe(false)
    expect(await balanceAt(chain, newTip, recipient)).toBe(WEI_PER_TRANSFER + 21n)
    await chain.exclusive(() => chain.resetHead(oldTip))
    await expectFlatMatchesTrie(chain, oldTip.header.stateRoot)
    expect(await balanceAt(chain, chain.head, recipient)).toBe(3n * WEI_PER_TRANSFER)
    await chain.exclusive(() => chain.resetHead(newTip))
    await expectFlatMatchesTrie(chain, newTip.header.stateRoot)
    close()
  })

  it('refuses to roll the head back beyond the window and leaves it where it was', async () => {
    const { chain, close } = await sealTransfers(tempDir(), 8, 1, BONSAI)
    const head = chain.head
    const tooOld = (await chain.getBlockByNumber(2n))!
    await expect(chain.exclusive(() => chain.resetHead(tooOld))).rejects.toThrow(StateUnavailableError)
    expect(chain.head.hash()).toEqual(head.hash())
    expect(chain.isCanonical(head)).toBe(true)
    await expectFlatMatchesTrie(chain, head.header.stateRoot)
    close()
  })

  it('records dev-tools edits of the head state as trie logs and undoes them on a rollback', async () => {
    const { chain, recipient, close } = await sealTransfers(tempDir(), 3, 1, BONSAI)
    const head = chain.head
    const parent = (await chain.getBlockByNumber(2n))!
    const state = openState(chain.trieDb, chain.common, chain.postStateRoot(head), true)
    const account = (await state.getAccount(recipient))!
    account.balance = 123n
    await state.putAccount(recipient, account)
    chain.setPostStateRoot(head, await state.getStateRoot())
    expect(await balanceAt(chain, chain.head, recipient)).toBe(123n)
    await expectFlatMatchesTrie(chain, chain.postStateRoot(head))
    await chain.exclusive(() => chain.resetHead(parent))
    await expectFlatMatchesTrie(chain, parent.header.stateRoot)
    await chain.exclusive(() => chain.resetHead(head))
    await expectFlatMatchesTrie(chain, chain.postStateRoot(head))
    expect(await balanceAt(chain, chain.head, recipient)).toBe(123n)
    close()
  })

  it('leaves the last committed block and its flat state whole when the process dies (no close)', async () => {
    const dataPath = tempDir()
    const before = await sealTransfers(dataPath, 5, 1, BONSAI)
    const headHash = before.chain.head.hash()
    before.chain.flushState = () => {}
    before.chain.store.db.close()
    const after = await openChain({ dataPath, ...BONSAI })
    expect(after.chain.head.hash()).toEqual(headHash)
    await expectFlatMatchesTrie(after.chain, after.chain.head.header.stateRoot)
    expect(await balanceAt(after.chain, after.chain.head, before.recipient)).toBe(5n * WEI_PER_TRANSFER)
    expect(await balanceAt(after.chain, after.chain.head, sender)).toBeGreaterThan(0n)
    after.close()
  })

  for (const [name, storage] of [
    ['', BONSAI],
    [' and history rows', { ...BONSAI, isBonsaiArchive: true }],
  ] as const) {
    it(`replays the stale-node records${name} held back until the flush when the process dies before it`, async () => {
      const recordRows = (chain: Chain) => [
        ...chain.store.db
          .prepare('SELECT hex(key) AS key, stale_at FROM stale_nodes ORDER BY key')
          .all()
          .map((r) => `${r.key}@${r.stale_at}`),
        ...chain.store.db
          .prepare(
            'SELECT hex(k.key) AS key, h.number, hex(h.value) AS value FROM state_history h JOIN history_keys k ON k.id = h.id ORDER BY k.key, h.number',
          )
          .all()
          .map((r) => `${r.key}@${r.number}=${r.value}`),
      ]
      // The same ten blocks sealed twice: flushed as usual, and with the process dying unflushed.
      const reference = await sealTransfers(tempDir(), 10, 1, storage)
      reference.chain.flushState()
      const dataPath = tempDir()
      const before = await sealTransfers(dataPath, 0, 1, storage)
      before.chain.flushState = () => {}
      await before.sealMore(10)
      // The prune at block 8 wrote the records up to it; those of blocks 9 and 10 are held back.
      expect(bytesToHex(before.chain.store.readMeta('deferredThrough')!)).toBe('0x0000000000000008')
      const written = recordRows(before.chain)
      expect(written).not.toEqual(recordRows(reference.chain))
      // The flat rows of blocks 9 and 10 are held back too: the tables hold block 8's state.
      const block8 = (await before.chain.getBlockByNumber(8n))!
      expect(bytesToHex(before.chain.store.readMeta('flatRoot')!)).toBe(bytesToHex(block8.header.stateRoot))
      before.chain.store.db.close()
      const after = await openChain({ dataPath, ...storage })
      expect(after.chain.head.hash()).toEqual(reference.chain.head.hash())
      expect(recordRows(after.chain)).toEqual(recordRows(reference.chain))
      expect(bytesToHex(after.chain.store.readMeta('deferredThrough')!)).toBe('0x000000000000000a')
      expect(bytesToHex(after.chain.store.readMeta('flatRoot')!)).toBe(bytesToHex(after.chain.head.header.stateRoot))
      expect(after.chain.bonsai!.flat.isHolding).toBe(false)
      await expectFlatMatchesTrie(after.chain, after.chain.head.header.stateRoot)
      after.close()
      // Sealing on past the window prunes the same records as the chain that never died.
      const resumed = await sealTransfers(dataPath, 0, 1, storage)
      await resumed.sealMore(12)
      resumed.chain.flushState()
      await reference.sealMore(12)
      reference.chain.flushState()
      expect(resumed.chain.head.hash()).toEqual(reference.chain.head.hash())
      expect(recordRows(resumed.chain)).toEqual(recordRows(reference.chain))
      // Block 9, whose records were replayed, now lies below the window.
      const block9 = (await resumed.chain.getBlockByNumber(9n))!
      if (storage.isBonsaiArchive)
        expect(await balanceAt(resumed.chain, block9, resumed.recipient)).toBe(9n * WEI_PER_TRANSFER)
      else expect(() => resumed.chain.stateAt(block9)).toThrow(StateUnavailableError)
      reference.close()
      await expectFlatMatchesTrie(resumed.chain, resumed.chain.head.header.stateRoot)
      const oldest = (await resumed.chain.getBlockByNumber(resumed.chain.head.header.number - 4n))!
      expect((await getMerkleStateProof(resumed.chain.stateAt(oldest), sender)).nonce).toBe(
        `0x${oldest.header.number.toString(16)}`,
      )
      resumed.close()
    })
  }

  it('opens a data path whose flat tables were written with every block while its records lag (earlier versions)', async () => {
    const dataPath = tempDir()
    const before = await sealTransfers(dataPath, 0, 1, BONSAI)
    before.chain.flushState = () => {}
    await before.sealMore(10)
    // What an earlier version left at a crash: the flat rows and root at the head, the records at block 8.
    before.chain.store.db.transaction(() => {
      before.chain.bonsai!.flat.writeHeld()
      before.chain.store.writeMeta('flatRoot', before.chain.head.header.stateRoot)
    })
    expect(bytesToHex(before.chain.store.readMeta('deferredThrough')!)).toBe('0x0000000000000008')
    before.chain.store.db.close()
    const after = await openChain({ dataPath, ...BONSAI })
    expect(bytesToHex(after.chain.store.readMeta('deferredThrough')!)).toBe('0x000000000000000a')
    await expectFlatMatchesTrie(after.chain, after.chain.head.header.stateRoot)
    expect(await balanceAt(after.chain, after.chain.head, before.recipient)).toBe(10n * WEI_PER_TRANSFER)
    after.close()
  })
})

describe('rebuildHeadState (debug_resyncWorldstate) on BONSAI', () => {
  const SMALL = { dataStorageFormat: 'BONSAI' as const, bonsaiHistoricalBlockLimit: 8 }
  const count = (chain: Chain, sql: string) => Number(chain.store.db.prepare(sql).get()?.n)

  it('writes the pruned genesis state again, replays the chain and rebuilds the flat tables and lost nodes', async () => {
    const { chain, recipient, sealMore, close } = await sealTransfers(tempDir(), 20, 2, SMALL)
    // A dev-tools edit of a state inside the window: the replay runs the next blocks on it.
    const edited = chain.head
    const state = openState(chain.trieDb, chain.common, chain.postStateRoot(edited), true)
    const account = (await state.getAccount(recipient))!
    account.balance = 123n
    await state.putAccount(recipient, account)
    chain.setPostStateRoot(edited, await state.getStateRoot())
    await sealMore(2)
    const head = chain.head
    const root = chain.postStateRoot(head)
    chain.flushState()
    expect(chain.store.readTrieNode(chain.genesis.header.stateRoot)).toBeUndefined()
    const nodesBefore = count(chain, 'SELECT COUNT(*) AS n FROM trie_nodes')
    const staleBefore = count(chain, 'SELECT COUNT(*) AS n FROM stale_nodes')
    const logsBefore = chain.bonsai!.flat.countTrieLogs()
    // Damage: a third of the head's trie nodes deleted, flat rows deleted, changed and invented.
    const live = computeTrieLog((hex) => chain.trieDb.getSync(hex), KECCAK256_RLP, root).created
    const lost = live.filter((_, i) => i % 3 === 0)
    expect(lost.length).toBeGreaterThan(5)
    const del = chain.store.db.prepare('DELETE FROM trie_nodes WHERE key = ?')
    for (const key of lost) del.run(key)
    chain.store.db.prepare('DELETE FROM flat_accounts WHERE key IN (SELECT key FROM flat_accounts LIMIT 3)').run()
    chain.store.db
      .prepare(
        "UPDATE flat_storage SET value = x'2a' WHERE (account, slot) IN (SELECT account, slot FROM flat_storage LIMIT 2)",
      )
      .run()
    chain.store.db.prepare("INSERT INTO flat_accounts (key, value) VALUES (zeroblob(32), x'c0')").run()

    expect(await chain.exclusive(() => rebuildHeadState(chain))).toBe(22)

    await expectFlatMatchesTrie(chain, root)
    for (const key of lost) expect(chain.store.readTrieNode(key)).toBeDefined()
    // Only the window's nodes were written: none of the genesis state or of the states below the window.
    expect(count(chain, 'SELECT COUNT(*) AS n FROM trie_nodes')).toBe(nodesBefore)
    expect(chain.store.readTrieNode(chain.genesis.header.stateRoot)).toBeUndefined()
    chain.flushState()
    expect(count(chain, 'SELECT COUNT(*) AS n FROM trie_nodes')).toBe(nodesBefore)
    expect(count(chain, 'SELECT COUNT(*) AS n FROM stale_nodes')).toBe(staleBefore)
    expect(chain.bonsai!.flat.countTrieLogs()).toBe(logsBefore)
    // The head reads (flat) and the states inside the window (trie) answer.
    expect(await balanceAt(chain, chain.head, recipient)).toBe(123n + 4n * WEI_PER_TRANSFER)
    const oldest = (await chain.getBlockByNumber(head.header.number - 8n))!
    expect(await balanceAt(chain, oldest, recipient)).toBe(28n * WEI_PER_TRANSFER)
    // The trie logs still move the flat state: back into the window and forward again.
    await chain.exclusive(() => chain.resetHead(oldest))
    await expectFlatMatchesTrie(chain, oldest.header.stateRoot)
    await chain.exclusive(() => chain.resetHead(head))
    await expectFlatMatchesTrie(chain, root)
    // And the chain goes on.
    await sealMore(1)
    await expectFlatMatchesTrie(chain, chain.head.header.stateRoot)
    close()
  })

  it('refuses when a dev-tools edit of a state below the window cannot be re-created, changing nothing', async () => {
    const dataPath = tempDir()
    const opened = await openChain({ dataPath, ...SMALL })
    const { chain } = opened
    const state = openState(chain.trieDb, chain.common, chain.postStateRoot(chain.genesis), true)
    await state.putAccount(sender, createAccountFromRLP((await state.getAccount(sender))!.serialize()))
    const account = (await state.getAccount(sender))!
    account.balance += 5n
    await state.putAccount(sender, account)
    chain.setPostStateRoot(chain.genesis, await state.getStateRoot())
    opened.close()
    const { chain: again, close } = await sealTransfers(dataPath, 12, 1, SMALL)
    again.flushState()
    const flatRoot = again.bonsai!.root!
    await expect(again.exclusive(() => rebuildHeadState(again))).rejects.toThrow(
      'the state the dev tools left after block 0 has left the history window and cannot be re-created',
    )
    expect(bytesToHex(again.bonsai!.root!)).toBe(bytesToHex(flatRoot))
    await expectFlatMatchesTrie(again, again.head.header.stateRoot)
    close()
  })
})

describe('--data-storage-format', () => {
  it('refuses a FOREST data path opened as BONSAI, naming both formats', async () => {
    const dataPath = tempDir()
    ;(await openChain({ dataPath, dataStorageFormat: 'FOREST' })).close()
    await expect(openChain({ dataPath, dataStorageFormat: 'BONSAI' })).rejects.toThrow(
      'the data path holds FOREST state storage, not BONSAI',
    )
    // Without the option the data path opens in its own format.
    const again = await openChain({ dataPath })
    expect(again.chain.bonsai).toBeUndefined()
    again.close()
  })

  it('refuses a BONSAI data path opened as FOREST and reopens it as BONSAI', async () => {
    const dataPath = tempDir()
    ;(await openChain({ dataPath, dataStorageFormat: 'BONSAI' })).close()
    await expect(openChain({ dataPath, dataStorageFormat: 'FOREST' })).rejects.toThrow(
      'the data path holds BONSAI state storage, not FOREST',
    )
    const again = await openChain({ dataPath })
    expect(again.chain.bonsai).toBeDefined()
    again.close()
  })
})
