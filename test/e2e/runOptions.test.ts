/**
 * The options of `basalt run`, each seen through its effect on a running binary (Besu's names):
 * identity, network id, coinbase, fractional interval mining, logging, host allowlist, the gas price
 * oracle's bounds, the call gas cap, the target gas limit and the pool's size and price bump.
 */

import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, parseGwei, type TransactionSerializable } from 'viem'
import { BASALT_BIN, SOURCE_RUNTIME, type StartedNode, signTransfer, startNode } from './harness.ts'

const COINBASE = '0x00000000000000000000000000000000000000c0'
let interval: StartedNode
let holding: StartedNode
let automine: StartedNode

beforeAll(async () => {
  ;[interval, holding, automine] = await Promise.all([
    startNode({
      args: [
        '--block-period',
        '0.25',
        '--network-id',
        '4242',
        '--identity',
        'alice',
        '--miner-coinbase',
        COINBASE,
        '--miner-extra-data',
        '0x626173616c74',
        '--min-gas-price',
        '2000000000',
        '--rpc-gas-cap',
        '100000',
        '--logging',
        'OFF',
        '--host-allowlist',
        'node.example,127.0.0.1',
        '--target-gas-limit',
        '50000000',
      ],
    }),
    startNode({
      args: [
        ...['--block-period', '3600', '--tx-pool-max-size', '2', '--tx-pool-price-bump', '50'],
        ...['--rpc-http-max-request-content-length', '2000', '--rpc-ws-max-frame-size', '3000'],
      ],
    }),
    startNode({ args: ['--api-gas-price-max', '3000000000'] }),
  ])
})
afterAll(async () => {
  await Promise.all([interval?.cleanup(), holding?.cleanup(), automine?.cleanup()])
})

function signed(node: StartedNode, i: number, tx: Partial<TransactionSerializable>): Promise<Hex> {
  return signTransfer(node.config.accounts[i].privateKey as Hex, tx)
}

async function sendRaw(node: StartedNode, raw: Hex) {
  return (await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] })).json
}

describe('basalt run options', () => {
  it('--network-id answers net_version; chain id stays 1337', async () => {
    expect(await interval.rpc('net_version')).toBe('4242')
    expect(await interval.rpc('eth_chainId')).toBe('0x539')
    expect(interval.config.networkId).toBe('4242')
  })

  it('--identity appears in web3_clientVersion', async () => {
    // The dev network announces an Anvil-compatible prefix first (see the README).
    expect(await interval.rpc<string>('web3_clientVersion')).toMatch(/^anvil\/[^/]+\/basalt\/alice\/v/)
  })

  it('--block-period 0.25 seals a block about every quarter second with increasing timestamps', async () => {
    const start = Number(await interval.rpc<string>('eth_blockNumber'))
    await Bun.sleep(1600)
    const end = Number(await interval.rpc<string>('eth_blockNumber'))
    // Six periods elapsed; timestamps are whole seconds, so strictly increasing means they run ahead.
    expect(end - start).toBeGreaterThanOrEqual(3)
    expect(end - start).toBeLessThanOrEqual(8)
    const a = await interval.rpc<{ timestamp: string; miner: string }>('eth_getBlockByNumber', [
      `0x${(end - 1).toString(16)}`,
      false,
    ])
    const b = await interval.rpc<{ timestamp: string; miner: string }>('eth_getBlockByNumber', [
      `0x${end.toString(16)}`,
      false,
    ])
    expect(BigInt(b.timestamp)).toBeGreaterThan(BigInt(a.timestamp))
  })

  it('--target-gas-limit moves each sealed block toward the target by at most parent / 1024 − 1', async () => {
    const n = Number(await interval.rpc<string>('eth_blockNumber'))
    const gasLimit = async (k: number) =>
      BigInt(
        (await interval.rpc<{ gasLimit: string }>('eth_getBlockByNumber', [`0x${k.toString(16)}`, false])).gasLimit,
      )
    const [parent, child] = [await gasLimit(n - 1), await gasLimit(n)]
    expect(parent).toBeLessThan(60_000_000n)
    expect(child).toBe(parent - (parent / 1024n - 1n) > 50_000_000n ? parent - (parent / 1024n - 1n) : 50_000_000n)
  })

  it('--miner-coinbase is the miner of sealed blocks and eth_coinbase; --miner-extra-data their extraData', async () => {
    const block = await interval.rpc<{ miner: string; extraData: string }>('eth_getBlockByNumber', ['latest', false])
    expect(block.miner).toBe(COINBASE)
    expect(block.extraData).toBe('0x626173616c74')
    expect(await interval.rpc('eth_coinbase')).toBe(COINBASE)
  })

  it('--min-gas-price is the floor of eth_gasPrice', async () => {
    // Empty interval blocks drive the base fee below 1 gwei; the answer stays at the 2 gwei floor.
    expect(BigInt(await interval.rpc<string>('eth_gasPrice'))).toBe(2_000_000_000n)
  })

  it('--api-gas-price-max is the ceiling of eth_gasPrice', async () => {
    for (let nonce = 0; nonce < 3; nonce++) {
      const raw = await signed(automine, 4, {
        nonce,
        maxFeePerGas: parseGwei('20'),
        maxPriorityFeePerGas: parseGwei('10'),
      })
      const hash = (await sendRaw(automine, raw)).result
      for (let i = 0; i < 100 && !(await automine.rpc('eth_getTransactionReceipt', [hash])); i++) await Bun.sleep(20)
    }
    // The recent tips alone (10 gwei) are above the 3 gwei ceiling.
    expect(BigInt(await automine.rpc<string>('eth_maxPriorityFeePerGas'))).toBe(10_000_000_000n)
    expect(BigInt(await automine.rpc<string>('eth_gasPrice'))).toBe(3_000_000_000n)
  })

  it('--rpc-gas-cap bounds the gas of eth_call whatever the request asks', async () => {
    // Creation code returning GAS: what is left after the intrinsic cost of a 100,000 gas budget.
    const call = { data: '0x5a60005260206000f3', gas: '0x989680' }
    const left = BigInt(await interval.rpc<string>('eth_call', [call, 'latest']))
    expect(left).toBeLessThan(100_000n - 53_000n)
    expect(left).toBeGreaterThan(40_000n)
    const uncapped = BigInt(await holding.rpc<string>('eth_call', [call, 'latest']))
    expect(uncapped).toBeGreaterThan(1_000_000n)
  })

  it('--host-allowlist accepts the listed hosts and refuses localhost once it is not listed', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
    const as = (host: string) =>
      fetch(interval.url, { method: 'POST', headers: { host, 'content-type': 'application/json' }, body })
    expect((await as('node.example')).status).toBe(200)
    const refused = await as('localhost')
    expect(refused.status).toBe(403)
    expect(await refused.text()).toBe('Host not authorized.')
  })

  it('--logging OFF prints no log line; the default INFO does', async () => {
    expect(interval.output()).not.toContain('node started')
    expect(automine.output()).toContain('node started')
  })

  it('--rpc-http-max-request-content-length and --rpc-ws-max-frame-size bound a request body and a frame', async () => {
    const body = (size: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_sha3', params: [`0x${'ab'.repeat(size)}`] })
    const post = (text: string) =>
      fetch(holding.url, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } })
    expect((await post(body(900))).status).toBe(200)
    expect((await post(body(1100))).status).toBe(413)
    const ws = new WebSocket(holding.wsUrl)
    const closed = new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve(e.code)))
    const answered = new Promise<string>((resolve) => ws.addEventListener('message', (e) => resolve(String(e.data))))
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    // The frame under the limit is answered (waited for: the close may otherwise overtake the answer)…
    ws.send(body(1400))
    expect(JSON.parse(await answered).result).toMatch(/^0x[0-9a-f]{64}$/)
    // …the one over it closes the socket with 1009.
    ws.send(body(1600))
    expect(await closed).toBe(1009)
  })

  it('--tx-pool-enable-save-restore keeps the pool across a restart, in txpool.dump of the data path', async () => {
    const first = await startNode({
      args: ['--block-period', '3600', '--tx-pool-enable-save-restore', '--rpc-http-api', 'ETH,TXPOOL'],
    })
    const sent = [
      await sendRaw(first, await signed(first, 6, { nonce: 0 })),
      await sendRaw(first, await signed(first, 6, { nonce: 1 })),
    ]
    expect(sent.every((r) => typeof r.result === 'string')).toBe(true)
    await first.stop()
    const dump = join(first.dataPath, 'txpool.dump')
    expect(
      readFileSync(dump, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.slice(0, 4)),
    ).toEqual(['127l', '127l'])
    const again = await startNode({
      dataPath: first.dataPath,
      args: ['--block-period', '3600', '--tx-pool-enable-save-restore', '--rpc-http-api', 'ETH,TXPOOL'],
    })
    try {
      const status = await again.rpc<{ pending: string }>('txpool_status')
      expect(status.pending).toBe('0x2')
      for (const r of sent)
        expect((await again.rpc<{ hash: string }>('eth_getTransactionByHash', [r.result])).hash).toBe(r.result)
      expect(existsSync(dump)).toBe(false)
    } finally {
      await again.cleanup()
      await first.cleanup()
    }
  })

  it('--tx-pool-max-size evicts the cheapest transaction for a better one and refuses a cheaper one', async () => {
    const cheap = await sendRaw(holding, await signed(holding, 1, { maxFeePerGas: parseGwei('3') }))
    const mid = await sendRaw(holding, await signed(holding, 2, { maxFeePerGas: parseGwei('4') }))
    const best = await sendRaw(holding, await signed(holding, 3, { maxFeePerGas: parseGwei('5') }))
    expect(best.result).toBeString()
    expect(await holding.rpc('eth_getTransactionByHash', [cheap.result])).toBeNull()
    expect(await holding.rpc('eth_getTransactionByHash', [mid.result])).not.toBeNull()
    const cheapest = await sendRaw(holding, await signed(holding, 5, { maxFeePerGas: parseGwei('3.5') }))
    expect(cheapest.error).toMatchObject({ code: -32000, message: 'Transaction pool is full' })
  })

  it('--tx-pool-price-bump 50 refuses a 20% replacement and accepts a 50% one', async () => {
    const under = await signed(holding, 2, {
      value: 2n,
      maxFeePerGas: parseGwei('4.8'),
      maxPriorityFeePerGas: parseGwei('1.2'),
    })
    expect((await sendRaw(holding, under)).error).toMatchObject({
      code: -32000,
      message: 'Replacement transaction underpriced',
    })
    const bumped = await signed(holding, 2, {
      value: 3n,
      maxFeePerGas: parseGwei('6'),
      maxPriorityFeePerGas: parseGwei('1.5'),
    })
    const hash = (await sendRaw(holding, bumped)).result
    expect((await holding.rpc<{ value: string }>('eth_getTransactionByHash', [hash])).value).toBe('0x3')
  })
})

describe('engine options of the executable', () => {
  const environment = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')

  // Only the compiled executable restarts itself (src/runtime/engineOptions.ts), and only when the
  // option was not set by whoever started it.
  it.skipIf(SOURCE_RUNTIME !== undefined || process.env.BUN_JSC_useFTLJIT !== undefined)(
    'runs `basalt run` without the FTL tier, in the process that was started',
    () => {
      expect(environment(automine.proc.pid)).toContain('BUN_JSC_useFTLJIT=false')
    },
  )

  // The same restart sizes the collector's heap for 512 MiB of RAM (the peak RSS under writes).
  it.skipIf(
    SOURCE_RUNTIME !== undefined ||
      process.env.BUN_JSC_useFTLJIT !== undefined ||
      process.env.BUN_JSC_forceRAMSize !== undefined,
  )('sizes the engine heap for 512 MiB of RAM, in the process that was started', () => {
    expect(environment(automine.proc.pid)).toContain(`BUN_JSC_forceRAMSize=${512 * 2 ** 20}`)
  })
})

describe('basalt --version and --help', () => {
  async function run(args: string[]) {
    const proc = Bun.spawn([BASALT_BIN, ...args], { stdout: 'pipe', stderr: 'pipe' })
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
    const code = await proc.exited
    clearTimeout(timer)
    return { code, stdout: await new Response(proc.stdout as ReadableStream).text() }
  }

  it('prints the client version and exits 0, also after a command (no node starts)', async () => {
    for (const args of [['--version'], ['run', '--version']]) {
      const { code, stdout } = await run(args)
      expect(code).toBe(0)
      expect(stdout.trim()).toMatch(new RegExp(`^basalt/v\\d+\\.\\d+\\.\\d+/[\\w-]+/${SOURCE_RUNTIME ?? 'bun'}-\\d`))
    }
  })

  it('lists every option of run with --help and exits 0', async () => {
    const { code, stdout } = await run(['run', '--help'])
    expect(code).toBe(0)
    for (const option of ['--network-id', '--rpc-http-cors-origins', '--tx-pool-price-bump', '--config-out'])
      expect(stdout).toContain(option)
  })
})

describe("options from a Besu-style TOML file and Besu's environment variables", () => {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-config-e2e-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('takes the file under the environment under the command line, with all for any host and origin', async () => {
    const file = join(dir, 'config.toml')
    writeFileSync(
      file,
      [
        '# A node as a Besu user configures one',
        'rpc-http-enabled=true',
        'rpc-http-api=["ETH","NET","WEB3","TXPOOL"]',
        'host-allowlist=["all"]',
        'rpc-http-cors-origins=["all"]',
        'rpc-http-port=1 # the command line gives the port',
        'identity="from-file"',
        'min-gas-price=0',
        '',
      ].join('\n'),
    )
    const node = await startNode({ args: ['--config-file', file], env: { BESU_IDENTITY: 'from-env' } })
    try {
      expect(Object.keys(await node.rpc<Record<string, string>>('rpc_modules')).sort()).toEqual([
        'eth',
        'net',
        'rpc',
        'txpool',
        'web3',
      ])
      expect(await node.rpc<string>('web3_clientVersion')).toContain('from-env')
      const res = await fetch(node.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://any.example', host: 'rpc.example:8545' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      })
      expect([res.status, res.headers.get('access-control-allow-origin')]).toEqual([200, '*'])
    } finally {
      await node.cleanup()
    }
  })

  it('refuses a key that names no option, with the file in the message', async () => {
    const file = join(dir, 'besu-only.toml')
    writeFileSync(file, 'privacy-enabled=true\n')
    const proc = Bun.spawn([BASALT_BIN, 'run', '--config-file', file, '--data-path', join(dir, 'd')], {
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const code = await proc.exited
    expect(code).toBe(2)
    expect((await new Response(proc.stderr as ReadableStream).text()).trim()).toBe(
      `basalt: Unknown option in TOML configuration file ${file}: privacy-enabled`,
    )
  })
})
