/**
 * Starts the compiled binary for e2e tests: free ports (port 0, read back from --config-out), a temp
 * data path removed afterwards, and a small JSON-RPC client. BASALT_BIN overrides the binary.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import type { Subprocess } from 'bun'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  keccak256,
  parseGwei,
  recoverAddress,
  type TransactionSerializable,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { SYSTEM_CONTRACTS } from '../../src/evm/systemContracts.ts'
import { removeTempDir, trackTempDir } from './tempDirs.ts'

export const BASALT_BIN = process.env.BASALT_BIN ?? new URL('../../dist/basalt', import.meta.url).pathname
/** `deno` or `node` when BASALT_BIN runs the source under that runtime (`make test-deno`, `make test-node`). */
export const SOURCE_RUNTIME = process.env.BASALT_RUNTIME as 'deno' | 'node' | undefined

export interface NodeConfigOut {
  chainId: number
  networkId: string
  genesisHash: string
  rpcHttpPort: number | null
  rpcWsPort: number | null
  accounts: { address: string; privateKey: string }[]
}

export interface StartedNode {
  proc: Subprocess
  dir: string
  dataPath: string
  config: NodeConfigOut
  url: string
  wsUrl: string
  /** All output the node wrote so far. */
  output(): string
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>
  rpcRaw(body: unknown): Promise<{ status: number; json: any }>
  stop(signal?: NodeJS.Signals): Promise<void>
  /** Stops the node and removes its temp directory. */
  cleanup(): Promise<void>
}

export interface StartOptions {
  args?: string[]
  /** Reuse a data path (restart tests); a fresh temp one otherwise. */
  dataPath?: string
  timeoutMs?: number
  /** The command that runs basalt (another runtime's launcher); BASALT_BIN otherwise. */
  bin?: string
  /** Environment variables added to the test process's own for the node. */
  env?: Record<string, string>
}

export async function startNode(opts: StartOptions = {}): Promise<StartedNode> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-e2e-'))
  const dataPath = opts.dataPath ?? join(dir, 'data')
  const configOut = join(dir, 'config-out.json')
  const args = [
    'run',
    '--data-path',
    dataPath,
    '--rpc-http-port',
    '0',
    '--rpc-ws-port',
    '0',
    // A node on a genesis file opens P2P; tests run side by side, so never on the fixed 30303.
    '--p2p-port',
    '0',
    '--config-out',
    configOut,
    ...(opts.args ?? []),
  ]
  const env = opts.env ? { ...process.env, ...opts.env } : undefined
  const proc = Bun.spawn([opts.bin ?? BASALT_BIN, ...args], { stdout: 'pipe', stderr: 'pipe', env })
  trackTempDir(dir, proc)
  let out = ''
  const drain = async (s: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder()
    for await (const chunk of s) out += dec.decode(chunk)
  }
  void drain(proc.stdout as ReadableStream<Uint8Array>)
  void drain(proc.stderr as ReadableStream<Uint8Array>)
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000)
  let config: NodeConfigOut | undefined
  // A node that never came up leaves nothing behind: its temporary directory goes with the error.
  const fail = (message: string): never => {
    removeTempDir(dir)
    throw new Error(message)
  }
  while (!config) {
    if (proc.exitCode !== null) fail(`basalt exited with ${proc.exitCode}:\n${out}`)
    if (Date.now() > deadline) {
      proc.kill('SIGKILL')
      await proc.exited
      fail(`basalt did not start in time:\n${out}`)
    }
    try {
      config = JSON.parse(readFileSync(configOut, 'utf8')) as NodeConfigOut
    } catch {
      await Bun.sleep(10)
    }
  }
  const url = `http://127.0.0.1:${config.rpcHttpPort}`
  const wsUrl = `ws://127.0.0.1:${config.rpcWsPort}`
  let id = 1
  const rpcRaw = async (body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, json: text ? JSON.parse(text) : undefined }
  }
  const node: StartedNode = {
    proc,
    dir,
    dataPath,
    config,
    url,
    wsUrl,
    output: () => out,
    rpcRaw,
    async rpc<T>(method: string, params: unknown[] = []) {
      const { json } = await rpcRaw({ jsonrpc: '2.0', id: id++, method, params })
      if (json.error)
        throw Object.assign(new Error(`${method}: ${json.error.message}`), {
          code: json.error.code,
          data: json.error.data,
        })
      return json.result as T
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode !== null || proc.signalCode !== null) return
      proc.kill(signal)
      const t = setTimeout(() => proc.kill('SIGKILL'), 10_000)
      await proc.exited
      clearTimeout(t)
    },
    async cleanup() {
      await node.stop()
      removeTempDir(dir)
    },
  }
  return node
}

/**
 * A port for a node to listen on that the test must know before the node starts (static peers, a
 * remote's URL). It is taken below the kernel's ephemeral range (32768 and up on Linux), where
 * `--rpc-http-port 0` and every outgoing connection get theirs: a port found free by binding 0 and
 * closing it can be handed to another process's port-0 bind before its node starts, and that node
 * then exits with EADDRINUSE. Random within 20000-32767 and checked free by binding it.
 */
/**
 * Stops `node` with SIGTERM and tells how it went: its exit code, whether it took under 10 s, and
 * whether it logged an error.
 */
export async function stopWithSigterm(
  node: StartedNode,
): Promise<{ code: number | null; isInTime: boolean; isClean: boolean }> {
  const started = Date.now()
  await node.stop('SIGTERM')
  return {
    code: node.proc.exitCode,
    isInTime: Date.now() - started < 10_000,
    isClean: !node.output().includes('ERROR'),
  }
}

export async function reservedPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_768)
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer()
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
    })
    if (free) return port
  }
  throw new Error('no free port in 20000-32767 after 200 tries')
}

/** Signs a 1 wei EIP-1559 transfer on the dev chain (nonce 0, 3 gwei max fee, 1 gwei tip unless `tx` says otherwise). */
export function signTransfer(key: Hex, tx: Partial<TransactionSerializable>): Promise<Hex> {
  return privateKeyToAccount(key).signTransaction({
    type: 'eip1559',
    chainId: 1337,
    to: '0x000000000000000000000000000000000000c0de',
    value: 1n,
    gas: 21000n,
    nonce: 0,
    maxFeePerGas: parseGwei('3'),
    maxPriorityFeePerGas: parseGwei('1'),
    ...tx,
  } as TransactionSerializable)
}

/** viem wallet (dev account `index`) and public clients on `node`'s dev chain (id 1337). */
export function viemClients(node: StartedNode, index: number) {
  const chain = defineChain({
    id: 1337,
    name: 'basalt',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  })
  const account = privateKeyToAccount(node.config.accounts[index].privateKey as Hex)
  const wallet = createWalletClient({ account, chain, transport: http() })
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 50 })
  return { chain, wallet, client }
}

/** `basalt run` on an in-memory data path until it exits (killed after `timeoutMs`): its exit code and stderr. */
export async function runToExit(args: string[], timeoutMs = 10_000): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn([BASALT_BIN, 'run', '--data-path', ':memory:', ...args], { stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  const code = await proc.exited
  clearTimeout(timer)
  return { code, stderr: (await new Response(proc.stderr as ReadableStream).text()).trim() }
}

/** Runs `basalt <args>` to completion (killed after `timeoutMs`): its exit code and stdout + stderr. */
export async function runBasalt(args: string[], timeoutMs = 30_000): Promise<{ code: number; out: string }> {
  const r = await runProcess([BASALT_BIN, ...args], { cwd: process.cwd(), env: process.env, timeoutMs })
  return { code: r.code, out: r.out + r.err }
}

/** Writes `value` (JSON, or text as it is) to `dir/name`; returns the path. */
export function writeJsonFile(dir: string, name: string, value: unknown): string {
  const file = join(dir, name)
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2))
  return file
}

/**
 * Writes a genesis on the latest Besu's Amsterdam from block 0 (chain id 2019, proof of stake) with
 * `accounts`, Prague's system contracts and a stub (returning no requests) at both of EIP-8282's
 * builder request contracts, which every Amsterdam block calls; returns the path.
 */
export function writeAmsterdamGenesis(dir: string, name: string, accounts: Record<string, unknown>): string {
  const builders = `0x${'99'.repeat(20)}`
  const alloc: Record<string, unknown> = { ...accounts, [builders]: { code: '0x00' } }
  for (const c of SYSTEM_CONTRACTS) alloc[c.address] = { code: c.code, nonce: '0x1' }
  return writeJsonFile(dir, name, {
    config: {
      chainId: 2019,
      londonBlock: 0,
      terminalTotalDifficulty: 0,
      amsterdamTime: 0,
      builderDepositRequestContractAddress: builders,
      builderExitRequestContractAddress: builders,
    },
    timestamp: '0x0',
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    alloc,
  })
}

/** Runs a command to completion (killed after `timeoutMs`); resolves to its output and exit code. */
export async function runProcess(
  argv: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; timeoutMs: number },
): Promise<{ out: string; err: string; code: number }> {
  const proc = Bun.spawn(argv, { cwd: opts.cwd, stdout: 'pipe', stderr: 'pipe', env: opts.env })
  const timer = setTimeout(() => proc.kill('SIGKILL'), opts.timeoutMs)
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ])
  clearTimeout(timer)
  return { out, err, code }
}

/** Writes a small post-merge genesis (chain id 4242, Cancun at 0, nothing funded) to `file`. */
export function writeCancunGenesis(file: string): void {
  writeFileSync(
    file,
    JSON.stringify({
      config: { chainId: 4242, londonBlock: 0, shanghaiTime: 0, cancunTime: 0, terminalTotalDifficulty: 0 },
      alloc: {},
      gasLimit: '0x1c9c380',
      difficulty: '0x0',
      extraData: '0x',
    }),
  )
}

/**
 * Polls `read` every 100 ms until `ok` holds (bounded by `ms` and 1000 polls); throws with the
 * last value otherwise.
 */
export async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  for (let i = 0; ; i++) {
    const v = await read()
    if (ok(v)) return v
    if (Date.now() > deadline || i > 1000) throw new Error(`${what}: last ${JSON.stringify(v)}`)
    await Bun.sleep(100)
  }
}

/**
 * Writes a London clique genesis to `file`: `signers` in the extraData (32-byte vanity, 20 bytes
 * each, 65-byte empty seal), `clique` as its clique section, `alloc` funded.
 */
export function writeCliqueGenesis(
  file: string,
  chainId: number,
  signers: string[],
  clique: Record<string, unknown>,
  alloc: Record<string, { balance: string }> = {},
): void {
  writeFileSync(
    file,
    JSON.stringify({
      config: { chainId, londonBlock: 0, clique },
      difficulty: '0x1',
      gasLimit: '0x1c9c380',
      extraData: `0x${'00'.repeat(32)}${signers.map((s) => s.slice(2)).join('')}${'00'.repeat(65)}`,
      alloc,
    }),
  )
}

/** The mixHash every IBFT 2.0 / QBFT header carries ("ctical byzantine fault tolerance"). */
export const BFT_MIX_HASH = '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365'

/**
 * The signers of a BFT block's commit seals, recovered over the header hash the seals sign: the
 * header with extraData without seals (QBFT keeps an empty seal list, IBFT 2.0 drops the field).
 */
export async function bftSealSigners(
  kind: 'qbft' | 'ibft2',
  node: StartedNode,
  block: { hash: Hex; extraData: Hex },
): Promise<string[]> {
  const header = RLP.decode(await node.rpc<Hex>('debug_getRawHeader', [block.hash])) as Uint8Array[]
  const extra = RLP.decode(block.extraData) as unknown as Uint8Array[][]
  const withoutSeals = kind === 'qbft' ? [...extra.slice(0, 4), []] : extra.slice(0, 4)
  header[12] = RLP.encode(withoutSeals as never)
  const hash = keccak256(RLP.encode(header))
  return Promise.all(
    extra[4].map(async (seal) => {
      const s = Buffer.from(seal)
      const sig = `0x${s.subarray(0, 64).toString('hex')}${(s[64] + 27).toString(16)}` as Hex
      return (await recoverAddress({ hash, signature: sig })).toLowerCase()
    }),
  )
}

/**
 * Runs `basalt operator generate-blockchain-config` on `genesis` with `count` generated validators
 * into `out`; answers the written genesis file and the validators' key directories.
 */
export function generateBftNetwork(
  out: string,
  genesis: object,
  count: number,
): { genesisFile: string; keyDirs: string[] } {
  const configFile = `${out}-config.json`
  writeFileSync(configFile, JSON.stringify({ genesis, blockchain: { nodes: { generate: true, count } } }))
  const r = Bun.spawnSync([
    BASALT_BIN,
    'operator',
    'generate-blockchain-config',
    '--config-file',
    configFile,
    '--to',
    out,
  ])
  if (r.exitCode !== 0) throw new Error(`generate-blockchain-config failed: ${r.stderr.toString()}`)
  const keyDirs = readdirSync(join(out, 'keys')).map((k) => join(out, 'keys', k))
  return { genesisFile: join(out, 'genesis.json'), keyDirs }
}
