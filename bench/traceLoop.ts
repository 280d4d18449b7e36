/**
 * CPU cost of `debug_traceTransaction` with the default struct logger, without HTTP: the shared
 * harness's token transfer on an in-memory dev chain, traced in rounds, one trace at a time, then
 * the answer turned into JSON text as the dispatcher does. Prints µs of CPU per trace by round
 * (replay and struct logger / JSON text); the first rounds warm the JIT.
 * Run: node_modules/.bin/bun bench/traceLoop.ts [traces per round] [rounds]
 */
import { computeContractAddress } from '../src/chain/addresses.ts'
import { StructLogger } from '../src/evm/tracers/structLogger.ts'
import { bytesToHex, hexToBytes } from '../src/primitives/hex.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { tracingChain } from '../test/tracing/tracingChain.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const TRACES = Number(process.argv[2] ?? 200)
const ROUNDS = Number(process.argv[3] ?? 6)

setLogLevel('WARN')
const t = await tracingChain()
const deployHash = await t.send({ data: hexToBytes(TOKEN_INITCODE + pad32((10n ** 30n).toString(16))) })
if (!(await t.chain.findTransaction(deployHash))) throw new Error('token not deployed')
const token = bytesToHex(computeContractAddress(hexToBytes(t.sender), 0n))
const transfer = await t.send({
  to: token,
  data: hexToBytes(`0xa9059cbb${pad32('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')}${pad32('1')}`),
})
const replay: number[] = []
const json: number[] = []
let logs = 0
let bytes = 0
for (let r = 0; r < ROUNDS; r++) {
  let replayUs = 0
  let jsonUs = 0
  for (let i = 0; i < TRACES; i++) {
    const c0 = process.cpuUsage()
    const result = await t.trace(transfer, new StructLogger())
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
