/**
 * A head move below the BONSAI window (debug_setHead, anvil_rollback, hardhat_reset past the
 * window): the target's state rebuilt from the state history's rows, against the replay of every
 * block from the genesis (docs/state-storage.md, "Head moves below the window"). Seals `blocks`
 * one-transfer blocks (each to a new recipient) on two dev chains, one keeping the state history and
 * one plain BONSAI, moves each head back `depth` blocks and prints the ms each move took, with the
 * number of accounts and slots of the target's state.
 * Run: node_modules/.bin/bun bench/headRebuild.ts [blocks=3000] [depth=1000]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rewindTo } from '../src/chain/headReset.ts'
import { stateRebuilds } from '../src/chain/stateRecovery.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { transferChain } from './transfers.ts'

const BLOCKS = Number(process.argv[2] ?? 3000)
const DEPTH = Number(process.argv[3] ?? 1000)

setLogLevel('WARN')

async function moveBack(isHistoryKept: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-head-rebuild-'))
  try {
    const config = { dataPath: dir, dataStorageFormat: 'BONSAI' as const, isBonsaiArchive: isHistoryKept }
    const { chain, close, sealNext } = await transferChain(config)
    try {
      for (let i = 0; i < BLOCKS; i++) await sealNext(i)
      chain.flushState()
      const target = (await chain.getBlockByNumber(BigInt(BLOCKS - DEPTH)))!
      const before = { ...stateRebuilds }
      const t0 = performance.now()
      await rewindTo(chain, target)
      const ms = performance.now() - t0
      const path =
        stateRebuilds.fromHistory > before.fromHistory
          ? 'state history'
          : stateRebuilds.byReplay > before.byReplay
            ? 'replay from the genesis'
            : 'trie logs (inside the window)'
      const rows = (table: string) => Number(chain.store.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0)
      return `${path}: head ${BLOCKS} → ${target.header.number} in ${ms.toFixed(0)} ms (state: ${rows('flat_accounts')} accounts, ${rows('flat_storage')} slots)`
    } finally {
      close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

console.log(await moveBack(true))
console.log(await moveBack(false))
