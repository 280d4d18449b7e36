/**
 * Where one `debug_traceTransaction` of the harness's token transfer goes, in process, without
 * HTTP: finding the transaction, the block's replay without a tracer (a tracer that subscribes to
 * nothing), the replay with the struct logger, and the JSON text of the answer, each timed apart in
 * every iteration (the two replays alternate, so both are equally warm). Prints the first five
 * iterations (a young process: the EVM warm from the sealed transfers, the tracing path cold) with
 * the process's CPU (all threads) of the traced replay, then the medians over the iterations after
 * the first hundred.
 * Usage: `node_modules/.bin/bun bench/tracePhases.ts [iterations] [warm-up transfers]` (defaults 600, 300).
 */
import { computeContractAddress } from '../src/chain/addresses.ts'
import { replayBlock } from '../src/evm/tracers/blockReplayer.ts'
import { StructLogger, type StructLoggerResult } from '../src/evm/tracers/structLogger.ts'
import type { TxTracer } from '../src/evm/tracers/txTracer.ts'
import { bytesToHex, hexToBytes } from '../src/primitives/hex.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { tracingChain } from '../test/tracing/tracingChain.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const ITERATIONS = Number(process.argv[2] ?? 600)
const WARM_UP = Number(process.argv[3] ?? 300)
const WARM_FROM = 100
const YOUNG = 5
/** Watches nothing: the transaction runs as without a tracer, through the same replay. */
const untraced: TxTracer<StructLoggerResult> = {
  start() {},
  finish: () => ({ gas: 0, failed: false, returnValue: '0x', structLogs: [] }),
}

setLogLevel('WARN')
const t = await tracingChain()
await t.send({ data: hexToBytes(TOKEN_INITCODE + pad32((10n ** 30n).toString(16))) })
const token = bytesToHex(computeContractAddress(hexToBytes(t.sender), 0n))
const transferTo = (to: string) => hexToBytes(`0xa9059cbb${pad32(to)}${pad32('1')}`)
const transfer = await t.send({ to: token, data: transferTo('0x70997970c51812dc3a010c7d01b50e0d17dc79c8') })
for (let i = 0; i < WARM_UP; i++) {
  await t.send({ to: token, data: transferTo(`0x${(0x1000 + i).toString(16).padStart(40, '0')}`) })
}

const phases = { find: [] as number[], untraced: [] as number[], traced: [] as number[], json: [] as number[] }
const tracedCpu: number[] = []
for (let k = 0; k < ITERATIONS; k++) {
  let t0 = performance.now()
  const found = await t.chain.findTransaction(transfer)
  if (!found) throw new Error('transfer not found')
  phases.find.push(performance.now() - t0)
  const only = (tracer: TxTracer<StructLoggerResult>) => (_tx: unknown, i: number) =>
    i === found.index ? tracer : undefined
  t0 = performance.now()
  await replayBlock(t.chain, found.block, only(untraced), found.index)
  phases.untraced.push(performance.now() - t0)
  const cpu0 = process.cpuUsage()
  t0 = performance.now()
  const out = await replayBlock(t.chain, found.block, only(new StructLogger()), found.index)
  phases.traced.push(performance.now() - t0)
  const cpu = process.cpuUsage(cpu0)
  tracedCpu.push((cpu.user + cpu.system) / 1000)
  t0 = performance.now()
  JSON.stringify({ jsonrpc: '2.0', id: 1, result: out.get(found.index) })
  phases.json.push(performance.now() - t0)
}
const ms = (x: number) => x.toFixed(2)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
for (let k = 0; k < Math.min(YOUNG, ITERATIONS); k++) {
  const row = Object.entries(phases).map(([name, xs]) => `${name} ${ms(xs[k])}`)
  console.log(`iteration ${k + 1} (ms): ${row.join(', ')}; traced replay CPU ${ms(tracedCpu[k])}`)
}
if (ITERATIONS > WARM_FROM) {
  const row = Object.entries(phases).map(([name, xs]) => `${name} ${Math.round(median(xs.slice(WARM_FROM)) * 1000)}`)
  console.log(`median after ${WARM_FROM} iterations (µs): ${row.join(', ')}`)
}
t.close()
