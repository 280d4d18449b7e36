/**
 * The shared harness's read rows against one basalt binary, by node CPU: deploys the harness's
 * token (an ERC-20 with `balanceOf`), sends one transfer, then measures `eth_call` of
 * `balanceOf(owner)` and `eth_getBalance` at c=1 and c=32 (node CPU per request and req/s), and
 * `eth_blockNumber` likewise (the floor), and
 * `debug_traceTransaction` of that transfer with the default struct logger (median wall ms and node
 * CPU per trace), first at the head, then again after `[blocks]` more blocks (below the BONSAI
 * window, where the replay runs on the state history, as in the harness's runs).
 * Usage: `bun bench/readRows.ts <binary> [calls] [blocks] [-- node options]` (defaults 10,000 and 600;
 * calls 0 skips the reads; `TRACES=n` sets the number of traces, 15 by default).
 */
import { startBenchNode } from './benchNode.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const binary = process.argv[2]
if (!binary) throw new Error('usage: bun bench/readRows.ts <binary> [calls] [blocks]')
const CALLS = Number(process.argv[3] ?? 10_000)
const BLOCKS = Number(process.argv[4] ?? 600)
const WARMUP = 5_000
const TRACES = Number(process.env.TRACES ?? 15)
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

const node = await startBenchNode(binary, 19900, [
  '--dev-accounts-unlocked',
  '--rpc-http-api',
  'ETH,NET,WEB3,DEBUG,HARDHAT',
  ...process.argv.slice(6),
])
const rpc = node.rpc

async function sendAndWait(tx: Record<string, string>): Promise<{ contractAddress: string | null }> {
  const hash = await rpc('eth_sendTransaction', [{ from: OWNER, ...tx }])
  for (let i = 0; i < 500; i++) {
    const r = (await rpc('eth_getTransactionReceipt', [hash])) as { contractAddress: string | null } | null
    if (r) return { ...r, hash } as never
    await Bun.sleep(5)
  }
  throw new Error('no receipt')
}

async function load(method: string, params: unknown[], count: number, concurrency: number): Promise<number> {
  let sent = 0
  const t0 = performance.now()
  const worker = async () => {
    while (sent < count) {
      sent++
      await rpc(method, params)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return count / ((performance.now() - t0) / 1000)
}

async function measure(method: string, params: unknown[], out: Record<string, unknown>): Promise<void> {
  await load(method, params, WARMUP, 32)
  for (const c of [1, 32]) {
    const cpu0 = node.cpuMs()
    const main0 = node.mainThreadCpuMs()
    const rps = await load(method, params, CALLS, c)
    out[`${method}_c${c}_cpu_us`] = Math.round(((node.cpuMs() - cpu0) * 10_000) / CALLS) / 10
    out[`${method}_c${c}_main_us`] = Math.round(((node.mainThreadCpuMs() - main0) * 10_000) / CALLS) / 10
    out[`${method}_c${c}_rps`] = Math.round(rps)
  }
}

async function traces(hash: string, label: string, out: Record<string, unknown>): Promise<void> {
  if (TRACES <= 0) return
  const ms: number[] = []
  const cpu0 = node.cpuMs()
  const main0 = node.mainThreadCpuMs()
  let bytes = 0
  for (let i = 0; i < TRACES; i++) {
    const t0 = performance.now()
    const r = (await rpc('debug_traceTransaction', [hash, {}])) as { structLogs: unknown[] }
    ms.push(performance.now() - t0)
    bytes = JSON.stringify(r).length
    if (!r.structLogs.length) throw new Error('empty trace')
  }
  out[`trace_${label}_cpu_ms`] = Math.round((node.cpuMs() - cpu0) / TRACES / 0.01) / 100
  out[`trace_${label}_main_thread_cpu_ms`] = Math.round((node.mainThreadCpuMs() - main0) / TRACES / 0.01) / 100
  out[`trace_${label}_bytes`] = bytes
  out[`trace_${label}_first5_ms`] = ms.slice(0, 5).map((x) => Math.round(x * 100) / 100)
  out[`trace_${label}_median_ms`] = Math.round(ms.sort((a, b) => a - b)[TRACES >> 1] * 100) / 100
}

try {
  const out: Record<string, unknown> = {}
  const deployed = await sendAndWait({ data: TOKEN_INITCODE + pad32((10n ** 30n).toString(16)), gas: '0xf4240' })
  const token = deployed.contractAddress as string
  const sent = (await sendAndWait({
    to: token,
    data: `0xa9059cbb${pad32(TO)}${pad32('1')}`,
    gas: '0x186a0',
  })) as never as {
    hash: string
  }
  const balanceOf = [{ to: token, data: `0x70a08231${pad32(OWNER)}` }, 'latest']
  if (CALLS > 0) {
    await measure('eth_call', balanceOf, out)
    await measure('eth_getBalance', [OWNER, 'latest'], out)
    await measure('eth_blockNumber', [], out)
  }
  await traces(sent.hash, 'head', out)
  if (BLOCKS > 0) {
    await rpc('hardhat_mine', [`0x${BLOCKS.toString(16)}`])
    await traces(sent.hash, 'old', out)
  }
  console.log(JSON.stringify(out))
} finally {
  await node.stop()
}
