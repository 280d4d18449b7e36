import { afterEach, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { openChain, poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { DevSealer } from '../producer/devSealer.ts'
import { TxPool } from '../txpool/txPool.ts'
import { devAccounts } from './devAccounts.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** Seals `count` one-transfer blocks on a fresh file-backed dev chain; returns the chain and a recipient. */
async function sealTransfers(dataPath: string, count: number) {
  const opened = await openChain({ dataPath })
  const { chain } = opened
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, {
    coinbase: new Uint8Array(20).fill(0xc0),
    clock: manualClock(1_700_000_000_000),
  })
  const key = hexToBytes(devAccounts()[0].privateKey)
  const recipient = new Address(new Uint8Array(20).fill(0x42))
  for (let i = 0; i < count; i++) {
    const tx = createFeeMarket1559Tx(
      {
        chainId: chain.common.chainId(),
        nonce: BigInt(i),
        to: recipient,
        value: 1000n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: chain.common },
    ).sign(key)
    await pool.add(tx)
    await sealer.sealBlock(false)
  }
  return { ...opened, recipient }
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
})
