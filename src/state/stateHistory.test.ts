import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Block } from '@ethereumjs/block'
import { getMerkleStateProof } from '@ethereumjs/statemanager'
import { Address } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import type { Chain } from '../chain/chain.ts'
import { devAccounts } from '../chain/devAccounts.ts'
import { moveHead, rewindTo } from '../chain/headReset.ts'
import { stateRebuilds } from '../chain/stateRecovery.ts'
import { call } from '../evm/callService.ts'
import { replayBlock } from '../evm/tracers/blockReplayer.ts'
import { openChain } from '../node/node.ts'
import { sealTransfers } from '../node/testChain.ts'
import { bigintToPaddedBytes, bytesToBigint, bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { afterEach, describe, expect, it } from '../runtime/testing.ts'
import { StateUnavailableError } from './bonsaiState.ts'
import { openState } from './worldState.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'basalt-history-'))
  dirs.push(d)
  return d
}

const ARCHIVE = { dataStorageFormat: 'BONSAI' as const, bonsaiHistoricalBlockLimit: 4, isBonsaiArchive: true }
const sender = new Address(hexToBytes(devAccounts()[0].address))
const beaconRoots = new Address(hexToBytes('0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02'))

async function blockAt(chain: Chain, n: bigint): Promise<Block> {
  return (await chain.getBlockByNumber(n))!
}

async function balanceAt(chain: Chain, n: bigint, address: Address): Promise<bigint> {
  return (await chain.stateAt(await blockAt(chain, n)).getAccount(address))?.balance ?? 0n
}

/** The EIP-4788 ring buffer's slot of a timestamp: it holds that timestamp once its block is sealed. */
function timestampSlot(timestamp: bigint): Uint8Array {
  return bigintToPaddedBytes(timestamp % 8191n, 32)
}

describe('BONSAI state history', () => {
  it('serves balances, nonces, storage and code of blocks far below the window', async () => {
    const { chain, recipient, close } = await sealTransfers(tempDir(), 30, 1, ARCHIVE)
    try {
      for (const n of [1n, 5n, 10n, 20n, 25n, 30n]) {
        expect(await balanceAt(chain, n, recipient)).toBe(n * 1000n)
        expect((await chain.stateAt(await blockAt(chain, n)).getAccount(sender))?.nonce).toBe(n)
      }
      const old = await blockAt(chain, 10n)
      const next = await blockAt(chain, 11n)
      const state = chain.stateAt(old)
      expect(bytesToBigint(await state.getStorage(beaconRoots, timestampSlot(old.header.timestamp)))).toBe(
        old.header.timestamp,
      )
      // Not yet written at block 10 (unless it is block 10's slot, one ring turn back: not here).
      expect((await state.getStorage(beaconRoots, timestampSlot(next.header.timestamp))).length).toBe(0)
      const headCode = await chain.stateAt(chain.head).getCode(beaconRoots)
      expect(headCode.length).toBeGreaterThan(0)
      expect(await state.getCode(beaconRoots)).toEqual(headCode)
      expect(await balanceAt(chain, 0n, recipient)).toBe(0n)
    } finally {
      close()
    }
  })

  it('runs calls and traces on a state 20 blocks back', async () => {
    const { chain, close } = await sealTransfers(tempDir(), 30, 1, ARCHIVE)
    try {
      const old = await blockAt(chain, 10n)
      const next = await blockAt(chain, 11n)
      const opts = { gasCap: 0n }
      // The beacon-roots contract answers a timestamp it holds, and reverts for one it does not.
      const known = await call(
        chain,
        old,
        { to: beaconRoots.bytes, data: bigintToPaddedBytes(old.header.timestamp, 32) },
        opts,
      )
      expect(known.isRevert).toBe(false)
      const unknown = await call(
        chain,
        old,
        { to: beaconRoots.bytes, data: bigintToPaddedBytes(next.header.timestamp, 32) },
        opts,
      )
      expect(unknown.isRevert).toBe(true)
      // A transfer of block 11 replayed on block 10's state: the sender's balance before, the gas.
      const before = (await chain.stateAt(old).getAccount(sender))!.balance
      const traced = await replayBlock(chain, next, () => ({
        start: () => {},
        finish: async (ctx, result) => ({
          balance: (await ctx.vm.stateManager.getAccount(new Address(ctx.sender)))!.balance,
          gas: result.totalGasSpent,
        }),
      }))
      expect(traced.get(0)?.gas).toBe(21_000n)
      expect(traced.get(0)?.balance).toBe((await chain.stateAt(next).getAccount(sender))!.balance)
      expect(traced.get(0)!.balance < before).toBe(true)
      // A second replay on the same state gives the same answer (the view is reset in between).
      const again = await replayBlock(chain, next, () => ({ start: () => {}, finish: (_ctx, r) => r.totalGasSpent }))
      expect(again.get(0)).toBe(21_000n)
      // The view remembers what the history answered: a third replay reads nothing from it.
      const history = chain.bonsai!.history!
      let reads = 0
      const { readAccount, readSlot } = history
      history.readAccount = (...args) => {
        reads++
        return readAccount.apply(history, args)
      }
      history.readSlot = (...args) => {
        reads++
        return readSlot.apply(history, args)
      }
      try {
        const third = await replayBlock(chain, next, () => ({
          start: () => {},
          finish: async (ctx) => (await ctx.vm.stateManager.getAccount(new Address(ctx.sender)))!.balance,
        }))
        expect(third.get(0)).toBe(traced.get(0)!.balance)
        expect(reads).toBe(0)
        // A new view of the same block reads the history again.
        expect((await chain.openHistoricalState!(old, chain.trieDb)!.getAccount(sender))!.balance).toBe(before)
        expect(reads).toBe(1)
      } finally {
        history.readAccount = readAccount
        history.readSlot = readSlot
      }
    } finally {
      close()
    }
  })

  it('answers what needs a trie (proofs) with StateUnavailableError below the window', async () => {
    const { chain, recipient, close } = await sealTransfers(tempDir(), 12, 1, ARCHIVE)
    try {
      const old = chain.stateAt(await blockAt(chain, 3n))
      await expect(getMerkleStateProof(old, recipient)).rejects.toThrow(StateUnavailableError)
      await expect(old.dumpStorageRange(beaconRoots, 0n, 10)).rejects.toThrow(StateUnavailableError)
      const trie = (old as unknown as { _trie: { getValueMap(start: bigint, limit: number): Promise<unknown> } })._trie
      await expect(trie.getValueMap(0n, 10)).rejects.toThrow(StateUnavailableError)
      // Inside the window the trie is still there.
      const recent = chain.stateAt(await blockAt(chain, chain.head.header.number - 2n))
      expect((await getMerkleStateProof(recent, recipient)).accountProof.length).toBeGreaterThan(0)
    } finally {
      close()
    }
  })

  it('follows head rollbacks and re-sealed blocks, inside and below the window', async () => {
    const { chain, recipient, sealMore, close } = await sealTransfers(tempDir(), 30, 1, ARCHIVE)
    try {
      const orphan = await blockAt(chain, 28n)
      // Back inside the window (the trie logs undo the flat state), then other blocks on top.
      await chain.exclusive(() => moveHead(chain, orphan))
      await chain.exclusive(async () => moveHead(chain, await blockAt(chain, 27n)))
      await sealMore(20, 7n)
      expect(await balanceAt(chain, 27n, recipient)).toBe(27_000n)
      expect(await balanceAt(chain, 28n, recipient)).toBe(27_007n)
      expect(await balanceAt(chain, 40n, recipient)).toBe(27_000n + 13n * 7n)
      // The rolled-back block is off the canonical chain, its state gone with it.
      expect(() => chain.stateAt(orphan)).toThrow(StateUnavailableError)
      // Below the window: the state is rebuilt from the genesis; the history keeps what is below.
      await chain.exclusive(async () => moveHead(chain, await blockAt(chain, 10n)))
      expect(await balanceAt(chain, 10n, recipient)).toBe(10_000n)
      await sealMore(20, 3n)
      expect(await balanceAt(chain, 5n, recipient)).toBe(5_000n)
      expect(await balanceAt(chain, 11n, recipient)).toBe(10_003n)
      expect(await balanceAt(chain, 25n, recipient)).toBe(10_000n + 15n * 3n)
    } finally {
      close()
    }
  })

  it('follows branch switches and dev-tools edits of the head state', async () => {
    const { chain, recipient, sealMore, close } = await sealTransfers(tempDir(), 3, 1, ARCHIVE)
    try {
      const oldTip = chain.head
      // A branch on block 1 moving 7 wei a block, then back to the first branch and to the new one again.
      await chain.exclusive(async () => chain.resetHead(await blockAt(chain, 1n)))
      await sealMore(3, 7n)
      const newTip = chain.head
      await chain.exclusive(() => chain.resetHead(oldTip))
      await chain.exclusive(() => chain.resetHead(newTip))
      await sealMore(10, 1n)
      // An edit of the head's state (hardhat_setBalance), then blocks on top of it.
      const edited = chain.head
      const state = openState(chain.trieDb, chain.common, chain.postStateRoot(edited), true)
      const account = (await state.getAccount(recipient))!
      account.balance = 555n
      await state.putAccount(recipient, account)
      chain.setPostStateRoot(edited, await state.getStateRoot())
      await sealMore(10, 1n)
      expect(chain.head.header.number).toBe(24n)
      expect(await balanceAt(chain, 1n, recipient)).toBe(1000n)
      expect(await balanceAt(chain, 2n, recipient)).toBe(1007n)
      expect(await balanceAt(chain, 4n, recipient)).toBe(1021n)
      expect(await balanceAt(chain, 13n, recipient)).toBe(1030n)
      expect(await balanceAt(chain, 14n, recipient)).toBe(555n)
      expect(await balanceAt(chain, 15n, recipient)).toBe(556n)
      // The first branch's blocks are off the canonical chain: no history for them.
      expect(() => chain.stateAt(oldTip)).toThrow(StateUnavailableError)
    } finally {
      close()
    }
  })

  it('keeps the history across a restart, and starts it at the head on a data path without one', async () => {
    const dataPath = tempDir()
    const plain = await sealTransfers(dataPath, 10, 1, { ...ARCHIVE, isBonsaiArchive: false })
    plain.close()
    const first = await sealTransfers(dataPath, 20, 1, ARCHIVE)
    const { chain, recipient } = first
    // Started at block 10: older states stay unavailable below the window.
    expect(() => chain.stateAt(chain.genesis)).toThrow(StateUnavailableError)
    await expect(balanceAt(chain, 5n, recipient)).rejects.toThrow(StateUnavailableError)
    expect(await balanceAt(chain, 10n, recipient)).toBe(10_000n)
    expect(await balanceAt(chain, 15n, recipient)).toBe(15_000n)
    first.close()
    const reopened = await openChain({ dataPath, dataStorageFormat: 'BONSAI', bonsaiHistoricalBlockLimit: 4 })
    try {
      // Without the option the data path keeps its history.
      expect(await balanceAt(reopened.chain, 15n, recipient)).toBe(15_000n)
      expect(reopened.chain.bonsai?.history?.from).toBe(10n)
    } finally {
      reopened.close()
    }
  })
  it('moves the head below the window from the history rows, to the state the replay gives', async () => {
    const dataPath = tempDir()
    const archive = await sealTransfers(dataPath, 30, 1, ARCHIVE)
    const plain = await sealTransfers(tempDir(), 30, 1, { ...ARCHIVE, isBonsaiArchive: false })
    const { recipient } = archive
    const accounts = [recipient, sender, new Address(new Uint8Array(20).fill(0xc0)), beaconRoots]
    /** What a head state answers: its root, then balance, nonce and code of each account, the ring buffer's slot. */
    const headState = async (chain: Chain) => {
      const state = chain.stateAt(chain.head)
      const out: string[] = [bytesToHex(chain.postStateRoot(chain.head))]
      for (const a of accounts) {
        const account = await state.getAccount(a)
        out.push(`${account?.balance}/${account?.nonce}/${bytesToHex(await state.getCode(a))}`)
      }
      out.push(bytesToHex(await state.getStorage(beaconRoots, timestampSlot(chain.head.header.timestamp))))
      return out
    }
    try {
      const before = { ...stateRebuilds }
      await rewindTo(archive.chain, await blockAt(archive.chain, 10n))
      expect(stateRebuilds).toEqual({ fromHistory: before.fromHistory + 1, byReplay: before.byReplay })
      // Plain BONSAI keeps no history: the replay from the genesis, as before.
      await rewindTo(plain.chain, await blockAt(plain.chain, 10n))
      expect(stateRebuilds).toEqual({ fromHistory: before.fromHistory + 1, byReplay: before.byReplay + 1 })
      const state = await headState(archive.chain)
      expect(state[0]).toBe(bytesToHex(archive.chain.head.header.stateRoot))
      expect(state).toEqual(await headState(plain.chain))
      expect(await balanceAt(archive.chain, 10n, recipient)).toBe(10_000n)
      expect(bytesToBigint(hexToBytes(state.at(-1)!))).toBe(archive.chain.head.header.timestamp)
      // New blocks seal on top, the same on both chains; the history still serves what is below.
      await archive.sealMore(20, 3n)
      await plain.sealMore(20, 3n)
      expect(bytesToHex(archive.chain.head.hash())).toBe(bytesToHex(plain.chain.head.hash()))
      expect(await headState(archive.chain)).toEqual(await headState(plain.chain))
      expect(await balanceAt(archive.chain, 5n, recipient)).toBe(5_000n)
      expect(await balanceAt(archive.chain, 11n, recipient)).toBe(10_003n)
    } finally {
      plain.close()
      archive.close()
    }
    const expected = bytesToHex(archive.chain.head.hash())
    const reopened = await openChain({ dataPath, ...ARCHIVE })
    try {
      expect(bytesToHex(reopened.chain.head.hash())).toBe(expected)
      expect(await balanceAt(reopened.chain, 30n, recipient)).toBe(10_000n + 20n * 3n)
      expect(await balanceAt(reopened.chain, 10n, recipient)).toBe(10_000n)
    } finally {
      reopened.close()
    }
  })
  it('falls back to the replay when the history rows give another state root', async () => {
    const { chain, recipient, close } = await sealTransfers(tempDir(), 30, 1, ARCHIVE)
    try {
      // A damaged history: the recipient missing after block 10.
      const rows = chain.bonsai!.history!.rows
      rows.write(rows.idOf(keccak_256(recipient.bytes))!, 10n, new Uint8Array(0))
      const before = { ...stateRebuilds }
      await rewindTo(chain, await blockAt(chain, 10n))
      expect(stateRebuilds).toEqual({ fromHistory: before.fromHistory, byReplay: before.byReplay + 1 })
      expect(bytesToHex(chain.postStateRoot(chain.head))).toBe(bytesToHex(chain.head.header.stateRoot))
      expect((await chain.stateAt(chain.head).getAccount(recipient))?.balance).toBe(10_000n)
    } finally {
      close()
    }
  })
})
