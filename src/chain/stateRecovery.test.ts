import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { openChain, poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { DevSealer } from '../producer/devSealer.ts'
import { afterEach, describe, expect, it } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { STATE_FLUSH_INTERVAL_MS } from './chain.ts'
import { devAccounts } from './devAccounts.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/**
 * Seals `count` blocks of `perBlock` transfers (one from each of the first dev accounts) on a fresh
 * file-backed dev chain; returns the chain, the recipient and a way to seal more.
 */
async function sealTransfers(dataPath: string, count: number, perBlock = 1) {
  const opened = await openChain({ dataPath })
  const { chain } = opened
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, {
    coinbase: new Uint8Array(20).fill(0xc0),
    clock: manualClock(1_700_000_000_000),
  })
  const keys = devAccounts()
    .slice(0, perBlock)
    .map((a) => hexToBytes(a.privateKey))
  const recipient = new Address(new Uint8Array(20).fill(0x42))
  let nonce = 0n
  const sealMore = async (blocks: number) => {
    for (let i = 0; i < blocks; i++, nonce++) {
      for (const key of keys) {
        const tx = createFeeMarket1559Tx(
          {
            chainId: chain.common.chainId(),
            nonce,
            to: recipient,
            value: 1000n,
            gasLimit: 21_000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 1n,
          },
          { common: chain.common },
        ).sign(key)
        await pool.add(tx)
      }
      await sealer.sealBlock(false)
    }
  }
  await sealMore(count)
  return { ...opened, recipient, sealMore }
}

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
      const opened = await sealTransfers(dataPath, 2)
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
