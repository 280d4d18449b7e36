/**
 * CPU cost of eth_call without HTTP, at the head of a fresh in-memory dev chain, in rounds, one call
 * at a time: `call()` of the EIP-2935 history contract (code that reads storage), or with `token`
 * the shared harness's ERC-20 `balanceOf(owner)` (what its `eth_call` row sends). Prints µs of CPU
 * per call for each round; the first rounds warm the shared session and the JIT.
 * Run: node_modules/.bin/bun bench/callLoop.ts [calls per round] [rounds] [history|token]
 */
import { computeContractAddress } from '../src/chain/addresses.ts'
import { call } from '../src/evm/callService.ts'
import { hexToBytes } from '../src/primitives/hex.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { tracingChain } from '../test/tracing/tracingChain.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const CALLS = Number(process.argv[2] ?? 5000)
const ROUNDS = Number(process.argv[3] ?? 6)
const TARGET = process.argv[4] ?? 'history'
const HISTORY = hexToBytes('0x0000f90827f1c53a10cb7a02335b175320002935')
const FROM = hexToBytes('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')

setLogLevel('WARN')
const t = await tracingChain()
const chain = t.chain
let req: { from: Uint8Array; to: Uint8Array; data: Uint8Array } = { from: FROM, to: HISTORY, data: new Uint8Array(32) }
if (TARGET === 'token') {
  await t.send({ data: hexToBytes(TOKEN_INITCODE + pad32((10n ** 30n).toString(16))) })
  const token = computeContractAddress(hexToBytes(t.sender), 0n)
  req = { from: FROM, to: token, data: hexToBytes(`0x70a08231${pad32(t.sender)}`) }
  const first = await call(chain, chain.head, req, { gasCap: 50_000_000n })
  if (first.exceptionError || first.returnData.length !== 32)
    throw new Error(`balanceOf failed: ${first.exceptionError}`)
} else if (TARGET !== 'history') throw new Error('target: history or token')
const perRound: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < CALLS; i++) await call(chain, chain.head, req, { gasCap: 50_000_000n })
  const cpu = process.cpuUsage(cpu0)
  perRound.push(Math.round((cpu.user + cpu.system) / CALLS))
}
console.log(`µs of CPU per call, by round of ${CALLS}: ${perRound.join(' ')}`)
t.close()
