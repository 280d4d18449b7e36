/**
 * The state of an older block inside the BONSAI window (docs/performance.md, "Disk and memory over
 * 50,000 / 100,000 blocks"): what keeping the window's trie nodes costs on disk, against what
 * rolling the trie logs back from the head would cost per read. After `blocks` one-transfer
 * blocks it prints the bytes of the nodes only the window's older states hold and of the trie
 * logs, then, for `depth` blocks below the head (default 100): µs for the first balance read of a
 * block's state (opening its view, walking its trie), for a warm one and for an eth_getProof
 * account proof, and ms to read and decode the `depth` trie logs and fold them into the accounts
 * and slots they changed (the least a roll-back does before its first answer).
 * Run: node_modules/.bin/bun bench/olderState.ts [blocks=2000] [depth=100]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getMerkleStateProof } from '@ethereumjs/statemanager'
import { bytesToHex } from '../src/primitives/hex.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { decodeTrieLog } from '../src/state/trieLog.ts'
import { recipient, transferChain } from './transfers.ts'

const BLOCKS = Number(process.argv[2] ?? 2000)
const DEPTH = Number(process.argv[3] ?? 100)
const SAMPLES = 50

setLogLevel('WARN')

const dir = mkdtempSync(join(tmpdir(), 'basalt-older-state-'))
try {
  const { chain, close, sealNext } = await transferChain({ dataPath: dir, dataStorageFormat: 'BONSAI' })
  for (let i = 0; i < BLOCKS; i++) await sealNext(i)
  chain.flushState()
  const db = chain.store.db
  const window = db
    .prepare(
      'SELECT COUNT(*) AS n, SUM(length(t.key) + length(t.value)) AS b FROM trie_nodes t JOIN stale_nodes s ON s.key = t.key',
    )
    .get()
  const logs = db.prepare('SELECT COUNT(*) AS n, SUM(length(log)) AS b FROM trie_logs').get()
  console.log(
    `${BLOCKS} blocks: the window's older states hold ${window?.n} nodes only they need (${(Number(window?.b) / 1024).toFixed(0)} KiB, ` +
      `${(Number(window?.b) / Number(logs?.n) / 1024).toFixed(2)} KiB a block); ${logs?.n} trie logs, ${(Number(logs?.b) / 1024).toFixed(0)} KiB ` +
      `(${(Number(logs?.b) / Number(logs?.n) / 1024).toFixed(2)} KiB each)`,
  )
  const head = chain.head.header.number
  let coldUs = 0
  let warmUs = 0
  let proofUs = 0
  for (let s = 0; s < SAMPLES; s++) {
    // A different block each time: a state view no earlier read opened.
    const block = (await chain.getBlockByNumber(head - BigInt(DEPTH) + BigInt(s)))!
    const t0 = performance.now()
    const state = chain.stateAt(block)
    await state.getAccount(recipient(s))
    const t1 = performance.now()
    await state.getAccount(recipient(s + 1))
    const t2 = performance.now()
    await getMerkleStateProof(state, recipient(s + 2))
    const t3 = performance.now()
    coldUs += (t1 - t0) * 1000
    warmUs += (t2 - t1) * 1000
    proofUs += (t3 - t2) * 1000
  }
  const t4 = performance.now()
  const accounts = new Map<string, Uint8Array>()
  const slots = new Map<string, Uint8Array>()
  for (let n = head; n > head - BigInt(DEPTH); n--) {
    const hash = chain.store.readCanonicalHash(n)!
    for (const bytes of chain.bonsai!.flat.readTrieLogs(n, hash).reverse()) {
      const log = decodeTrieLog(bytes)
      for (const a of log.accounts) accounts.set(bytesToHex(a.key), a.before)
      for (const x of log.slots) slots.set(bytesToHex(x.account) + bytesToHex(x.slot), x.before)
    }
  }
  const rollMs = performance.now() - t4
  console.log(
    `${DEPTH} blocks below the head, over the kept trie nodes: first balance read ${(coldUs / SAMPLES).toFixed(0)} µs, ` +
      `warm ${(warmUs / SAMPLES).toFixed(0)} µs, account proof ${(proofUs / SAMPLES).toFixed(0)} µs; ` +
      `rolling ${DEPTH} trie logs back: ${rollMs.toFixed(1)} ms (${accounts.size} accounts, ${slots.size} slots changed)`,
  )
  close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
