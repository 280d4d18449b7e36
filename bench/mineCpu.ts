/**
 * `hardhat_mine` over HTTP: starts a basalt binary on a fresh data path, mines N empty blocks in
 * one call and prints the call's wall time and the node's CPU per block (/proc/<pid>/stat).
 * Compare binaries back to back. Usage: `bun bench/mineCpu.ts <binary> [blocks]` (default 10,000).
 */
import { startBenchNode } from './benchNode.ts'

const binary = process.argv[2]
if (!binary) throw new Error('usage: bun bench/mineCpu.ts <binary> [blocks]')
const BLOCKS = Number(process.argv[3] ?? 10_000)

const node = await startBenchNode(binary, 19400)
try {
  const cpu0 = node.cpuMs()
  const t0 = performance.now()
  await node.rpc('hardhat_mine', [`0x${BLOCKS.toString(16)}`])
  const ms = performance.now() - t0
  const cpuMs = node.cpuMs() - cpu0
  const head = Number(await node.rpc('eth_blockNumber', []))
  console.log(
    `hardhat_mine ${BLOCKS}: ${(ms / 1000).toFixed(1)} s, ${((ms * 1000) / BLOCKS).toFixed(0)} µs/block wall, ${((cpuMs * 1000) / BLOCKS).toFixed(0)} µs/block node CPU, head ${head}, RSS ${node.rssMib().toFixed(0)} MiB`,
  )
} finally {
  await node.stop()
}
