/**
 * The dev chain is durable: a restart on the same data path keeps the chain, `kill -9` in the middle
 * of a stream of transactions keeps every block whose receipt a client saw, and a data path made
 * from another genesis is refused.
 */
import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BASALT_BIN, type StartedNode, startNode, writeCancunGenesis } from './harness.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-persist-'))
const started: StartedNode[] = []
afterAll(async () => {
  await Promise.all(started.map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

async function start(dataPath: string, args: string[] = []): Promise<StartedNode> {
  const n = await startNode({ dataPath, args })
  started.push(n)
  return n
}

function transfer(key: Hex, nonce: number): Promise<Hex> {
  return privateKeyToAccount(key).signTransaction({
    type: 'eip1559',
    chainId: 1337,
    to: '0x000000000000000000000000000000000000d00d',
    value: 1n,
    gas: 21000n,
    nonce,
    maxFeePerGas: parseGwei('20'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
}

async function receiptOf(node: StartedNode, hash: string): Promise<{ blockHash: string; blockNumber: string }> {
  for (let i = 0; i < 500; i++) {
    const r = await node.rpc<{ blockHash: string; blockNumber: string } | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await Bun.sleep(2)
  }
  throw new Error(`no receipt for ${hash}`)
}

describe('persistence', () => {
  it('keeps blocks, balances and receipts across a restart on the same data path', async () => {
    const dataPath = join(dir, 'restart')
    const first = await start(dataPath)
    const key = first.config.accounts[3].privateKey as Hex
    const hash = await first.rpc<string>('eth_sendRawTransaction', [await transfer(key, 0)])
    const receipt = await receiptOf(first, hash)
    await first.stop()
    const second = await start(dataPath)
    expect(await second.rpc('eth_blockNumber')).toBe(receipt.blockNumber)
    expect(await second.rpc('eth_getTransactionReceipt', [hash])).toMatchObject({ blockHash: receipt.blockHash })
    expect(await second.rpc('eth_getBalance', ['0x000000000000000000000000000000000000d00d', 'latest'])).toBe('0x1')
    expect(await second.rpc('eth_getTransactionCount', [first.config.accounts[3].address, 'latest'])).toBe('0x1')
  })

  it.each(['FOREST', 'BONSAI', 'X_BONSAI_ARCHIVE'])(
    'keeps every block whose receipt was returned when killed with SIGKILL mid-stream (%s)',
    async (format) => {
      const dataPath = join(dir, `kill-${format}`)
      const args = [`--data-storage-format=${format}`]
      const node = await start(dataPath, args)
      const key = node.config.accounts[4].privateKey as Hex
      const seen: { hash: string; blockHash: string }[] = []
      const stream = (async () => {
        for (let nonce = 0; nonce < 400; nonce++) {
          try {
            const hash = await node.rpc<string>('eth_sendRawTransaction', [await transfer(key, nonce)])
            const r = await node.rpc<{ blockHash: string } | null>('eth_getTransactionReceipt', [hash])
            if (r) seen.push({ hash, blockHash: r.blockHash })
          } catch {
            return
          }
        }
      })()
      // The kill lands mid-stream once a few receipts came back (a fixed sleep could kill before
      // the first on a loaded machine, leaving nothing to check).
      for (let i = 0; i < 600 && seen.length < 5; i++) await Bun.sleep(50)
      node.proc.kill('SIGKILL')
      await stream
      await node.proc.exited
      expect(seen.length).toBeGreaterThan(0)
      const again = await start(dataPath, args)
      for (const s of seen) {
        expect(await again.rpc('eth_getTransactionReceipt', [s.hash])).toMatchObject({ blockHash: s.blockHash })
      }
      // The state of the last blocks (flushed behind them) was rebuilt: the sender goes on from its nonce.
      const sender = node.config.accounts[4].address
      const nonce = Number(await again.rpc<string>('eth_getTransactionCount', [sender, 'latest']))
      expect(nonce).toBeGreaterThanOrEqual(seen.length)
      const next = await again.rpc<string>('eth_sendRawTransaction', [await transfer(key, nonce)])
      let receipt: unknown = null
      for (let i = 0; i < 100 && receipt === null; i++) {
        receipt = await again.rpc('eth_getTransactionReceipt', [next])
        if (receipt === null) await Bun.sleep(50)
      }
      expect(receipt).toMatchObject({ status: '0x1' })
    },
  )

  it('leaves a whole chain at a 1,024-block boundary when killed with SIGKILL inside hardhat_mine', async () => {
    const dataPath = join(dir, 'kill-mine')
    // A call worker makes the node open its database in SQLite's normal locking mode (alone it opens
    // it exclusively), so this test can read it beside the node.
    const node = await start(dataPath, ['--rpc-call-workers=1'])
    const key = node.config.accounts[5].privateKey as Hex
    const hash = await node.rpc<string>('eth_sendRawTransaction', [await transfer(key, 0)])
    const receipt = await receiptOf(node, hash)
    // hardhat_mine commits its blocks 1,024 at a time; the kill lands inside the call, once the
    // database (read beside the node) shows a batch.
    let settled = false
    const mining = node.rpc('hardhat_mine', ['0x2710']).then(
      () => (settled = true),
      () => (settled = true),
    )
    const db = new Database(join(dataPath, 'basalt.sqlite'), { readonly: true })
    const firstBatch = Number(receipt.blockNumber) + 1024
    let committed = 0
    try {
      const deadline = Date.now() + 60_000
      while (!settled && committed < firstBatch && Date.now() < deadline) {
        committed = db.query<{ n: number | null }, []>('SELECT MAX(number) AS n FROM canonical').get()?.n ?? 0
        if (committed < firstBatch) await Bun.sleep(10)
      }
    } finally {
      db.close()
    }
    node.proc.kill('SIGKILL')
    expect(settled).toBe(false)
    expect(committed).toBeGreaterThanOrEqual(firstBatch)
    await mining
    await node.proc.exited
    const again = await start(dataPath)
    const head = Number(await again.rpc<string>('eth_blockNumber'))
    expect(head).toBeGreaterThanOrEqual(committed)
    expect(head).toBeLessThan(1 + 10_000)
    expect((head - Number(receipt.blockNumber)) % 1024).toBe(0)
    const top = await again.rpc<{ hash: string; parentHash: string }>('eth_getBlockByNumber', ['latest', false])
    const below = await again.rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${(head - 1).toString(16)}`, false])
    expect(top.parentHash).toBe(below.hash)
    expect(await again.rpc('eth_getTransactionReceipt', [hash])).toMatchObject({ blockHash: receipt.blockHash })
    // The chain goes on from there: the next transfer is mined on top.
    const next = await again.rpc<string>('eth_sendRawTransaction', [await transfer(key, 1)])
    expect(Number((await receiptOf(again, next)).blockNumber)).toBe(head + 1)
    expect(await again.rpc('eth_getBalance', ['0x000000000000000000000000000000000000d00d', 'latest'])).toBe('0x2')
  })

  it('refuses a FOREST data path started as BONSAI with one line naming both formats', async () => {
    const dataPath = join(dir, 'forest')
    const forest = await start(dataPath, ['--data-storage-format=FOREST'])
    await forest.stop()
    const proc = Bun.spawn(
      [
        BASALT_BIN,
        'run',
        '--data-path',
        dataPath,
        '--data-storage-format=BONSAI',
        '--rpc-http-port',
        '0',
        '--rpc-ws-enabled=false',
      ],
      { stdout: 'pipe', stderr: 'pipe' },
    )
    expect(await proc.exited).not.toBe(0)
    const stderr = await new Response(proc.stderr as ReadableStream).text()
    expect(stderr).toContain('the data path holds FOREST state storage, not BONSAI')
  })

  it('moves a FOREST chain to a new BONSAI data path through blocks export and import', async () => {
    const forestPath = join(dir, 'to-migrate')
    const forest = await start(forestPath, ['--data-storage-format=FOREST'])
    const key = forest.config.accounts[4].privateKey as Hex
    for (let nonce = 0; nonce < 3; nonce++) {
      await receiptOf(forest, await forest.rpc<string>('eth_sendRawTransaction', [await transfer(key, nonce)]))
    }
    const head = await forest.rpc<{ hash: string; number: string }>('eth_getBlockByNumber', ['latest', false])
    await forest.stop()
    const file = join(dir, 'migrate.rlp')
    const run = async (args: string[]) => {
      const proc = Bun.spawn([BASALT_BIN, 'blocks', ...args], { stdout: 'pipe', stderr: 'pipe' })
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000)
      const code = await proc.exited
      clearTimeout(timer)
      return code
    }
    expect(await run(['export', '--data-path', forestPath, '--to', file])).toBe(0)
    const bonsaiPath = join(dir, 'migrated')
    expect(await run(['import', '--data-path', bonsaiPath, '--from', file, '--data-storage-format=BONSAI'])).toBe(0)
    // Opened without the option, the new data path is BONSAI: FOREST is refused, and its chain is the old one.
    const refused = Bun.spawn(
      [
        BASALT_BIN,
        'run',
        '--data-path',
        bonsaiPath,
        '--data-storage-format=FOREST',
        '--rpc-http-port',
        '0',
        '--rpc-ws-enabled=false',
      ],
      { stdout: 'pipe', stderr: 'pipe' },
    )
    expect(await refused.exited).not.toBe(0)
    const stderr = await new Response(refused.stderr as ReadableStream).text()
    expect(stderr).toContain('the data path holds BONSAI state storage, not FOREST')
    expect(stderr).toContain('basalt blocks import --data-storage-format=FOREST')
    const bonsai = await start(bonsaiPath)
    expect(await bonsai.rpc('eth_getBlockByNumber', ['latest', false])).toMatchObject(head)
    expect(await bonsai.rpc('eth_getBalance', ['0x000000000000000000000000000000000000d00d', 'latest'])).toBe('0x3')
    const proof = await bonsai.rpc<{ balance: string }>('eth_getProof', [
      '0x000000000000000000000000000000000000d00d',
      [],
      '0x2',
    ])
    expect(proof.balance).toBe('0x2')
  })

  it('refuses a data path created from another genesis, naming the genesis it holds', async () => {
    const dataPath = join(dir, 'other-genesis')
    const dev = await start(dataPath)
    await dev.stop()
    const genesisFile = join(dir, 'genesis.json')
    writeCancunGenesis(genesisFile)
    const proc = Bun.spawn(
      [
        BASALT_BIN,
        'run',
        '--genesis-file',
        genesisFile,
        '--data-path',
        dataPath,
        '--rpc-http-port',
        '0',
        '--rpc-ws-enabled=false',
        '--p2p-port',
        '0',
      ],
      {
        stdout: 'pipe',
        stderr: 'pipe',
      },
    )
    const code = await proc.exited
    const stderr = await new Response(proc.stderr as ReadableStream).text()
    expect(code).not.toBe(0)
    expect(stderr).toContain(dev.config.genesisHash)
  })
})

describe('BONSAI history window', () => {
  it('serves states inside --bonsai-historical-block-limit, refuses older ones, and rolls the head back', async () => {
    const node = await start(join(dir, 'window'), [
      '--data-storage-format=BONSAI',
      '--bonsai-historical-block-limit=3',
      '--rpc-http-api=ETH,DEBUG',
    ])
    const key = node.config.accounts[5].privateKey as Hex
    const hashes: string[] = []
    for (let nonce = 0; nonce < 6; nonce++) {
      hashes.push(await node.rpc<string>('eth_sendRawTransaction', [await transfer(key, nonce)]))
      await receiptOf(node, hashes[nonce])
    }
    expect(await node.rpc('eth_blockNumber')).toBe('0x6')
    const to = '0x000000000000000000000000000000000000d00d'
    expect(await node.rpc('eth_getBalance', [to, '0x3'])).toBe('0x3')
    const proof = await node.rpc<{ balance: string }>('eth_getProof', [to, [], '0x3'])
    expect(proof.balance).toBe('0x3')
    const old = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [to, '0x2'] })
    expect(old.json.error).toEqual({ code: -32000, message: 'World state unavailable' })
    // A trace replays on its parent's state: block 4's (parent 3) runs, block 3's (parent 2) is refused
    // as Besu refuses it, never replayed on a partly pruned state.
    const traced = await node.rpc<{ failed: boolean }>('debug_traceTransaction', [hashes[3], {}])
    expect(traced.failed).toBe(false)
    const tooOld = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'debug_traceTransaction',
      params: [hashes[2], {}],
    })
    expect(tooOld.json.error).toEqual({ code: -32000, message: 'World state unavailable' })
    // The node keeps serving; the head rolls back inside the window and builds on from there.
    expect(await node.rpc('debug_setHead', ['0x4'])).toBe('Success')
    expect(await node.rpc('eth_getBalance', [to, 'latest'])).toBe('0x4')
    const sender = node.config.accounts[5].address
    expect(await node.rpc('eth_getTransactionCount', [sender, 'latest'])).toBe('0x4')
    await receiptOf(node, await node.rpc<string>('eth_sendRawTransaction', [await transfer(key, 4)]))
    expect(await node.rpc('eth_getBalance', [to, 'latest'])).toBe('0x5')
  })
})
