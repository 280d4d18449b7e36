/**
 * Node CPU per transaction over HTTP, the write rows of the shared harness: starts a basalt binary
 * on a fresh data path, sends pre-signed ETH transfers (1 wei, each to a new address) with
 * `eth_sendRawTransaction`, and divides the CPU time the node's process used (utime + stime from
 * /proc/<pid>/stat) by the number of transactions. Two modes, as the harness runs them: `await`
 * (each transaction's receipt polled for, back to back, before the next is sent: a block per
 * transaction) and `burst` (every transaction sent, each send awaited, then the last receipt
 * polled for), plus `await` from 8 senders at once (other dev accounts), with the transactions a
 * block held. Wall-clock rates on a loaded machine swing by a factor of two or more; this figure
 * moves much less. Compare binaries back to back.
 * Also prints the RSS 300 ms after the first answer and the peak RSS (VmHWM) at the end, the
 * harness's idle and peak rows. Usage: `bun bench/writeCpu.ts <binary> [transactions]` (default
 * 500 per mode).
 */
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { devAccounts } from '../src/chain/devAccounts.ts'
import { startBenchNode } from './benchNode.ts'

const binary = process.argv[2]
if (!binary) throw new Error('usage: bun bench/writeCpu.ts <binary> [transactions]')
const COUNT = Number(process.argv[3] ?? 500)
const RECEIPT_LIMIT_MS = 60_000
const KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
/** The 8 concurrent senders: dev accounts other than KEY's. */
const SENDER_KEYS = devAccounts()
  .map((a) => hexToBytes(a.privateKey as `0x${string}`))
  .filter((k) => bytesToHex(k) !== bytesToHex(KEY))
  .slice(0, 8)

const node = await startBenchNode(binary, 19900)
const rpc = node.rpc

/** Polls as the harness does: 20 polls back to back, then one every millisecond. */
async function receipt(hash: string): Promise<void> {
  const until = performance.now() + RECEIPT_LIMIT_MS
  for (let i = 0; (await rpc('eth_getTransactionReceipt', [hash])) === null; i++) {
    if (performance.now() > until) throw new Error(`no receipt for ${hash}`)
    if (i >= 20) await Bun.sleep(1)
  }
}

/** Transfers from the funded dev account, nonces from `firstNonce`, each to a new address. */
function signTransfers(chainId: number, firstNonce: number, count: number, tag: number, key = KEY): string[] {
  const common = createCustomCommon({ chainId }, Mainnet, { hardfork: Hardfork.Prague })
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    const to = new Uint8Array(20)
    new DataView(to.buffer).setUint32(16, i + 1)
    to[0] = 0x42
    to[1] = tag
    const tx = createFeeMarket1559Tx(
      {
        nonce: firstNonce + i,
        to,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
      },
      { common },
    ).sign(key)
    out.push(bytesToHex(tx.serialize()))
  }
  return out
}

try {
  const chainId = Number((await rpc('eth_chainId', [])) as string)
  await Bun.sleep(300) // as the shared harness waits before its idle reading
  const idleRssMib = node.rssMib()
  const awaited = signTransfers(chainId, 0, COUNT, 1)
  const burst = signTransfers(chainId, COUNT, COUNT, 2)
  const out: Record<string, number> = {}
  let cpu0 = node.cpuMs()
  const main0 = node.mainThreadCpuMs()
  let t0 = performance.now()
  for (const raw of awaited) await receipt((await rpc('eth_sendRawTransaction', [raw])) as string)
  out.await_cpu_us_per_tx = Math.round(((node.cpuMs() - cpu0) * 1000) / COUNT)
  out.await_main_thread_us_per_tx = Math.round(((node.mainThreadCpuMs() - main0) * 1000) / COUNT)
  out.await_tx_per_s = Math.round((COUNT * 1000) / (performance.now() - t0))
  cpu0 = node.cpuMs()
  t0 = performance.now()
  let last = ''
  for (const raw of burst) last = (await rpc('eth_sendRawTransaction', [raw])) as string
  await receipt(last)
  out.burst_cpu_us_per_tx = Math.round(((node.cpuMs() - cpu0) * 1000) / COUNT)
  out.burst_tx_per_s = Math.round((COUNT * 1000) / (performance.now() - t0))
  const perSender = Math.ceil(COUNT / SENDER_KEYS.length)
  const lists = SENDER_KEYS.map((key, i) => signTransfers(chainId, 0, perSender, 3 + i, key))
  const blockBefore = Number((await rpc('eth_blockNumber', [])) as string)
  cpu0 = node.cpuMs()
  t0 = performance.now()
  await Promise.all(
    lists.map(async (list) => {
      for (const raw of list) await receipt((await rpc('eth_sendRawTransaction', [raw])) as string)
    }),
  )
  const sent = perSender * SENDER_KEYS.length
  out.await8_cpu_us_per_tx = Math.round(((node.cpuMs() - cpu0) * 1000) / sent)
  out.await8_tx_per_s = Math.round((sent * 1000) / (performance.now() - t0))
  const blocks = Number((await rpc('eth_blockNumber', [])) as string) - blockBefore
  out.await8_txs_per_block = Math.round((sent / blocks) * 100) / 100
  out.idle_rss_mib = Math.round(idleRssMib * 10) / 10
  out.peak_rss_mib = Math.round(node.peakRssMib() * 10) / 10
  console.log(JSON.stringify(out))
} finally {
  await node.stop()
}
