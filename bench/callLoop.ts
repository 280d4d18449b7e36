/**
 * CPU cost of eth_call without HTTP: `call()` of the EIP-2935 history contract (code that reads
 * storage) at the head of a fresh in-memory dev chain, in rounds, one call at a time. Prints µs of
 * CPU per call for each round; the first rounds warm the shared session and the JIT.
 * Run: node_modules/.bin/bun bench/callLoop.ts [calls per round] [rounds]
 */
import { call } from '../src/evm/callService.ts'
import { openChain } from '../src/node/node.ts'
import { hexToBytes } from '../src/primitives/hex.ts'
import { setLogLevel } from '../src/primitives/logger.ts'

const CALLS = Number(process.argv[2] ?? 5000)
const ROUNDS = Number(process.argv[3] ?? 6)
const HISTORY = hexToBytes('0x0000f90827f1c53a10cb7a02335b175320002935')
const FROM = hexToBytes('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')

setLogLevel('WARN')
const { chain, close } = await openChain({ dataPath: ':memory:' })
const req = { from: FROM, to: HISTORY, data: new Uint8Array(32) }
const perRound: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < CALLS; i++) await call(chain, chain.head, req, { gasCap: 50_000_000n })
  const cpu = process.cpuUsage(cpu0)
  perRound.push(Math.round((cpu.user + cpu.system) / CALLS))
}
console.log(`µs of CPU per call, by round of ${CALLS}: ${perRound.join(' ')}`)
close()
