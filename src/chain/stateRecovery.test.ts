import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openChain } from '../node/node.ts'
import { sealTransfers } from '../node/testChain.ts'
import { afterEach, describe, expect, it } from '../runtime/testing.ts'
import { STATE_FLUSH_INTERVAL_MS } from './chain.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('recoverHeadState', () => {
  it('rebuilds the state of blocks whose nodes were never flushed, as after kill -9', async () => {
    const dataPath = mkdtempSync(join(tmpdir(), 'basalt-recovery-'))
    dirs.push(dataPath)
    const before = await sealTransfers(dataPath, 5)
    const headHash = before.chain.head.hash()
    expect(before.chain.trieDb.pendingCount).toBeGreaterThan(0)
    // A crash: the database closes with the newest state nodes still in memory (and no timer flushes them).
    before.chain.flushState = () => {}
    before.chain.store.db.close()

    const after = await openChain({ dataPath })
    expect(after.chain.head.hash()).toEqual(headHash)
    expect(after.chain.trieDb.pendingCount).toBe(0)
    const account = await after.chain.stateAt(after.chain.head).getAccount(before.recipient)
    expect(account?.balance).toBe(5000n)
    after.close()
  })

  it('finds nothing to rebuild after a clean close', async () => {
    const dataPath = mkdtempSync(join(tmpdir(), 'basalt-recovery-'))
    dirs.push(dataPath)
    const before = await sealTransfers(dataPath, 3)
    before.close()
    const after = await openChain({ dataPath })
    const { recoverHeadState } = await import('./stateRecovery.ts')
    expect(await recoverHeadState(after.chain)).toBe(0)
    const account = await after.chain.stateAt(after.chain.head).getAccount(before.recipient)
    expect(account?.balance).toBe(3000n)
    after.close()
  })

  it('replays blocks of several senders from their stored senders, roots checked', async () => {
    const dataPath = mkdtempSync(join(tmpdir(), 'basalt-recovery-'))
    dirs.push(dataPath)
    const before = await sealTransfers(dataPath, 4, 3)
    const headHash = before.chain.head.hash()
    before.chain.flushState = () => {}
    before.chain.store.db.close()
    const after = await openChain({ dataPath })
    expect(after.chain.head.hash()).toEqual(headHash)
    const account = await after.chain.stateAt(after.chain.head).getAccount(before.recipient)
    expect(account?.balance).toBe(12_000n)
    after.close()
  })
})

describe('Chain.commitBlock', () => {
  it('flushes state a second after the oldest unflushed block even if its timer never ran', async () => {
    const dataPath = mkdtempSync(join(tmpdir(), 'basalt-recovery-'))
    dirs.push(dataPath)
    const realNow = performance.now.bind(performance)
    let shiftMs = 0
    performance.now = () => realNow() + shiftMs
    try {
      // FOREST's rule; a BONSAI data path keeps nodes no committed state holds pending for a while.
      const opened = await sealTransfers(dataPath, 2, 1, { dataStorageFormat: 'FOREST' })
      expect(opened.chain.trieDb.pendingCount).toBeGreaterThan(0)
      shiftMs = STATE_FLUSH_INTERVAL_MS
      await opened.sealMore(1)
      expect(opened.chain.trieDb.pendingCount).toBe(0)
      await opened.sealMore(1)
      expect(opened.chain.trieDb.pendingCount).toBeGreaterThan(0)
      opened.close()
    } finally {
      performance.now = realNow
    }
  })
})
