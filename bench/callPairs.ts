/**
 * Two basalt binaries compared on the shared harness's `eth_call` row under the same load: both are
 * started, each deploys the harness's token, and then they take turns, a slice of `balanceOf` calls
 * at c=1 and one at c=32 each, so that load from other work falls on both alike. Prints node CPU per
 * call (whole process and main thread) for each binary and concurrency, summed over the rounds after
 * the first `[warm-up rounds]`, and the figure of each round.
 * Usage: `bun bench/callPairs.ts <binary A> <binary B> [rounds] [calls per slice] [warm-up rounds]`
 * (defaults 12, 1,000 and 4). `METHOD=eth_getBalance` sends the harness's `eth_getBalance` of the
 * token's owner instead (its `eth_getBalance` row), in the same way.
 */
import { type BenchNode, startBenchNode } from './benchNode.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const [binaryA, binaryB] = process.argv.slice(2, 4)
if (!binaryA || !binaryB)
  throw new Error('usage: bun bench/callPairs.ts <binary A> <binary B> [rounds] [calls] [warm-up]')
const ROUNDS = Number(process.argv[4] ?? 12)
const SLICE = Number(process.argv[5] ?? 1_000)
const WARMUP_ROUNDS = Number(process.argv[6] ?? 4)
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const METHOD = process.env.METHOD ?? 'eth_call'
if (METHOD !== 'eth_call' && METHOD !== 'eth_getBalance') throw new Error('METHOD: eth_call or eth_getBalance')

async function tokenCall(node: BenchNode): Promise<unknown[]> {
  const hash = await node.rpc('eth_sendTransaction', [
    { from: OWNER, data: TOKEN_INITCODE + pad32((10n ** 30n).toString(16)), gas: '0xf4240' },
  ])
  for (let i = 0; i < 500; i++) {
    const r = (await node.rpc('eth_getTransactionReceipt', [hash])) as { contractAddress: string } | null
    if (!r) {
      await Bun.sleep(5)
      continue
    }
    if (METHOD === 'eth_getBalance') return [OWNER, 'latest']
    return [{ to: r.contractAddress, data: `0x70a08231${pad32(OWNER)}` }, 'latest']
  }
  throw new Error('no receipt')
}

async function slice(node: BenchNode, params: unknown[], concurrency: number): Promise<[number, number]> {
  const cpu0 = node.cpuMs()
  const main0 = node.mainThreadCpuMs()
  let sent = 0
  const worker = async () => {
    while (sent < SLICE) {
      sent++
      await node.rpc(METHOD, params)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return [node.cpuMs() - cpu0, node.mainThreadCpuMs() - main0]
}

const args = ['--dev-accounts-unlocked']
const nodes = [await startBenchNode(binaryA, 19900, args), await startBenchNode(binaryB, 19400, args)]
try {
  const calls = [await tokenCall(nodes[0]), await tokenCall(nodes[1])]
  const sums = new Map<string, [number, number]>()
  const perRound = new Map<string, number[]>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of [1, 32]) {
      for (const i of [0, 1]) {
        const [cpu, main] = await slice(nodes[i], calls[i], c)
        const key = `${i === 0 ? 'A' : 'B'} c=${c}`
        perRound.set(key, [...(perRound.get(key) ?? []), Math.round((cpu * 1000) / SLICE)])
        if (round < WARMUP_ROUNDS) continue
        const [cpuSum, mainSum] = sums.get(key) ?? [0, 0]
        sums.set(key, [cpuSum + cpu, mainSum + main])
      }
    }
  }
  const measured = (ROUNDS - WARMUP_ROUNDS) * SLICE
  for (const [key, [cpu, main]] of sums) {
    const us = (ms: number) => Math.round((ms * 1000) / measured)
    console.log(
      `${key}: ${us(cpu)} µs of CPU per call (main thread ${us(main)}); by round ${perRound.get(key)?.join(' ')}`,
    )
  }
} finally {
  for (const node of nodes) await node.stop()
}
