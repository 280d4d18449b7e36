/**
 * CPU cost of `debug_traceTransaction` with the default struct logger, without HTTP: the shared
 * harness's token transfer on an in-memory dev chain, traced in rounds, one trace at a time, then
 * the answer turned into JSON text as the dispatcher does. Prints µs of CPU per trace by round
 * (replay and struct logger / JSON text); the first rounds warm the JIT. The warm-up transfers,
 * sealed before the first trace (the shared harness traces after its write phases), leave the
 * EVM's code warm and the tracer's cold, as in a node that traces for the first time.
 * With `untraced`, the replays run with a tracer that subscribes to nothing (the replay's own cost).
 * Run: node_modules/.bin/bun bench/traceLoop.ts [traces per round] [rounds] [warm-up transfers] [untraced]
 */
import { computeContractAddress } from '../src/chain/addresses.ts'
import { StructLogger, type StructLoggerResult } from '../src/evm/tracers/structLogger.ts'
import type { TxTracer } from '../src/evm/tracers/txTracer.ts'
import { bytesToHex, hexToBytes } from '../src/primitives/hex.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { tracingChain } from '../test/tracing/tracingChain.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const TRACES = Number(process.argv[2] ?? 200)
const ROUNDS = Number(process.argv[3] ?? 6)
const WARM_UP = Number(process.argv[4] ?? 0)
const isUntraced = process.argv[5] === 'untraced'
/** Watches nothing: the transaction runs as without a tracer, through the same replay. */
const untraced: TxTracer<StructLoggerResult> = {
  start() {},
  finish: () => ({ gas: 0, failed: false, returnValue: '0x', structLogs: [] }),
}

setLogLevel('WARN')
const t = await tracingChain()
const deployHash = await t.send({ data: hexToBytes(TOKEN_INITCODE + pad32((10n ** 30n).toString(16))) })
if (!(await t.chain.findTransaction(deployHash))) throw new Error('token not deployed')
const token = bytesToHex(computeContractAddress(hexToBytes(t.sender), 0n))
const transfer = await t.send({
  to: token,
  data: hexToBytes(`0xa9059cbb${pad32('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')}${pad32('1')}`),
})
for (let i = 0; i < WARM_UP; i++) {
  const to = `0x${(0x1000 + i).toString(16).padStart(40, '0')}`
  await t.send({ to: token, data: hexToBytes(`0xa9059cbb${pad32(to)}${pad32('1')}`) })
}
const replay: number[] = []
const json: number[] = []
let logs = 0
let bytes = 0
for (let r = 0; r < ROUNDS; r++) {
  let replayUs = 0
  let jsonUs = 0
  for (let i = 0; i < TRACES; i++) {
    const c0 = process.cpuUsage()
    const result = await t.trace(transfer, isUntraced ? untraced : new StructLogger())
    const c1 = process.cpuUsage(c0)
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result })
    const c2 = process.cpuUsage(c0)
    replayUs += c1.user + c1.system
    jsonUs += c2.user + c2.system - (c1.user + c1.system)
    logs = result.structLogs.length
    bytes = text.length
  }
  replay.push(Math.round(replayUs / TRACES))
  json.push(Math.round(jsonUs / TRACES))
}
console.log(`${logs} struct logs, ${bytes} bytes of JSON`)
console.log(`µs of CPU per trace by round of ${TRACES}: replay and tracer ${replay.join(' ')}; JSON ${json.join(' ')}`)
t.close()
