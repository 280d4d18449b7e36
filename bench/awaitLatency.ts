/**
 * Where an awaited transaction's wall time goes, seen from the client, and the node's CPU per
 * thread: starts a basalt binary on a fresh data path, deploys the shared harness's token, then
 * sends pre-signed ETH transfers and token transfers one at a time from one sender and polls for
 * each receipt as the harness's `receiptOf` does (20 polls back to back, then one a millisecond).
 * Per workload it prints the medians of the send's round trip, of the time from the send's answer
 * to the receipt, the polls that found nothing per transaction, the rate, and the node's CPU per
 * transaction by thread name (/proc/<pid>/task/<tid>/stat, summed over threads of one name), and the
 * main thread's system time on its own (`main_system`).
 * It also prints the mean time a transaction by fifth of the run, warm-up included.
 * Usage: `bun bench/awaitLatency.ts <binary> [transactions]` (default 1,000 per workload; the first
 * fifth of each is a warm-up left out of the other figures; `WARMUP=n` sets how many, `WORKLOADS=token`
 * or `eth` runs one; `NODE_BUN_OPTIONS` is the node's BUN_OPTIONS, e.g. a CPU profile).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { startBenchNode } from './benchNode.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const binary = process.argv[2]
if (!binary) throw new Error('usage: bun bench/awaitLatency.ts <binary> [transactions]')
const COUNT = Number(process.argv[3] ?? 1000)
const WARMUP = Number(process.env.WARMUP ?? Math.floor(COUNT / 5))
const RECEIPT_LIMIT_MS = 60_000
const KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'

// NODE_BUN_OPTIONS reaches the node alone (e.g. a CPU profile of it, not of this driver).
const nodeOptions = process.env.NODE_BUN_OPTIONS
const node = await startBenchNode(binary, 19900, ['--dev-accounts-unlocked'], {
  env: nodeOptions ? { BUN_OPTIONS: nodeOptions } : undefined,
})
const rpc = node.rpc

/** CPU milliseconds by thread name (threads of one name summed). */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${node.pid}/task`)) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${node.pid}/task/${tid}/stat`, 'utf8')
    } catch {
      continue // the thread ended
    }
    const name = tid === String(node.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')
    out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10)
    // The main thread's system time on its own: SQLite's file writes and the sockets show there.
    if (name === 'main') out.set('main_system', Number(fields[12]) * 10)
  }
  return out
}

/** Polls as the harness does; returns the polls that found nothing. */
async function receipt(hash: string): Promise<number> {
  const until = performance.now() + RECEIPT_LIMIT_MS
  let misses = 0
  while ((await rpc('eth_getTransactionReceipt', [hash])) === null) {
    if (performance.now() > until) throw new Error(`no receipt for ${hash}`)
    if (++misses > 20) await Bun.sleep(1)
  }
  return misses
}

async function sendAndWait(tx: Record<string, string>): Promise<{ contractAddress: string }> {
  const hash = (await rpc('eth_sendTransaction', [{ from: OWNER, ...tx }])) as string
  await receipt(hash)
  return (await rpc('eth_getTransactionReceipt', [hash])) as { contractAddress: string }
}

function sign(chainId: number, nonce: number, to: Uint8Array, data: Uint8Array, gasLimit: bigint): string {
  const common = createCustomCommon({ chainId }, Mainnet, { hardfork: Hardfork.Prague })
  const tx = createFeeMarket1559Tx(
    {
      nonce,
      to,
      value: data.length ? 0n : 1n,
      data,
      gasLimit,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    },
    { common },
  )
  return bytesToHex(tx.sign(KEY).serialize())
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits

try {
  const chainId = Number((await rpc('eth_chainId', [])) as string)
  const token = hexToBytes(
    (await sendAndWait({ data: TOKEN_INITCODE + pad32((10n ** 30n).toString(16)), gas: '0xf4240' }))
      .contractAddress as `0x${string}`,
  )
  let nonce = Number((await rpc('eth_getTransactionCount', [OWNER, 'latest'])) as string)
  const out: Record<string, unknown> = {}
  for (const workload of (process.env.WORKLOADS ?? 'eth,token').split(',') as ('eth' | 'token')[]) {
    const raws: string[] = []
    for (let i = 0; i < COUNT; i++) {
      const to = new Uint8Array(20)
      new DataView(to.buffer).setUint32(16, i + 1)
      to[0] = workload === 'eth' ? 0x42 : 0x43
      const data = workload === 'eth' ? new Uint8Array() : hexToBytes(`0xa9059cbb${pad32(bytesToHex(to))}${pad32('1')}`)
      raws.push(sign(chainId, nonce++, workload === 'eth' ? to : token, data, workload === 'eth' ? 21_000n : 100_000n))
    }
    const sendMs: number[] = []
    const waitMs: number[] = []
    let misses = 0
    const totalMs: number[] = []
    let cpu0 = threadCpu()
    let t0 = performance.now()
    for (let i = 0; i < COUNT; i++) {
      if (i === WARMUP) {
        cpu0 = threadCpu()
        t0 = performance.now()
      }
      const s = performance.now()
      const hash = (await rpc('eth_sendRawTransaction', [raws[i]])) as string
      const sent = performance.now()
      const missed = await receipt(hash)
      totalMs.push(performance.now() - s)
      if (i < WARMUP) continue
      sendMs.push(sent - s)
      waitMs.push(performance.now() - sent)
      misses += missed
    }
    const n = COUNT - WARMUP
    const cpu1 = threadCpu()
    const perThread: Record<string, number> = {}
    for (const [name, ms] of cpu1) {
      const us = Math.round(((ms - (cpu0.get(name) ?? 0)) * 1000) / n)
      if (us > 0) perThread[name] = us
    }
    out[workload] = {
      tx_per_s: Math.round((n * 1000) / (performance.now() - t0)),
      send_ms_p50: round(median(sendMs)),
      send_to_receipt_ms_p50: round(median(waitMs)),
      misses_per_tx: round(misses / n, 2),
      mean_ms_by_fifth: [0, 1, 2, 3, 4].map((f) => {
        const part = totalMs.slice((f * COUNT) / 5, ((f + 1) * COUNT) / 5)
        return round(part.reduce((a, b) => a + b, 0) / part.length)
      }),
      cpu_us_per_tx_by_thread: perThread,
    }
  }
  console.log(JSON.stringify(out))
} finally {
  await node.stop()
}
