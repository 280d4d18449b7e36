/**
 * Traces of neighbouring blocks below the BONSAI window, in process: an in-memory dev chain with
 * the harness's token and `[transfers]` one-transfer blocks (the first ones end up below the
 * 512-block window, their parent states in the state history), then the first `[replays]` transfers
 * traced once each with the struct logger, in block order, so that every replay runs on another
 * parent state. Prints, as medians over the replays after the first hundred, the state history's
 * calls per replay, the µs spent in them, and the replay's CPU.
 * Usage: `node_modules/.bin/bun bench/traceSweep.ts [transfers] [replays]` (defaults 800, 300).
 */
import { computeContractAddress } from '../src/chain/addresses.ts'
import { replayBlock } from '../src/evm/tracers/blockReplayer.ts'
import { StructLogger } from '../src/evm/tracers/structLogger.ts'
import { bytesToHex, hexToBytes } from '../src/primitives/hex.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { tracingChain } from '../test/tracing/tracingChain.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const TRANSFERS = Number(process.argv[2] ?? 800)
const REPLAYS = Math.min(TRANSFERS, Number(process.argv[3] ?? 300))
const WARM_FROM = 100

setLogLevel('WARN')
const t = await tracingChain()
await t.send({ data: hexToBytes(TOKEN_INITCODE + pad32((10n ** 30n).toString(16))) })
const token = bytesToHex(computeContractAddress(hexToBytes(t.sender), 0n))
const hashes: Uint8Array[] = []
for (let i = 0; i < TRANSFERS; i++) {
  const to = (0x1000 + i).toString(16)
  hashes.push(await t.send({ to: token, data: hexToBytes(`0xa9059cbb${pad32(to)}${pad32('1')}`) }))
}

// Every read of the history goes through one of these; count them and time them.
const history = t.chain.bonsai?.history as unknown as Record<string, (...args: unknown[]) => unknown> | undefined
if (!history) throw new Error('the chain keeps no state history')
let calls = 0
let readNs = 0
for (const name of ['readAccount', 'readSlot', 'readMany']) {
  const read = history[name]?.bind(history)
  if (!read) continue
  history[name] = (...args: unknown[]) => {
    const t0 = Bun.nanoseconds()
    const out = read(...args)
    readNs += Bun.nanoseconds() - t0
    calls++
    return out
  }
}

const perReplay = { calls: [] as number[], readUs: [] as number[], cpuMs: [] as number[] }
for (const hash of hashes.slice(0, REPLAYS)) {
  const found = await t.chain.findTransaction(hash)
  if (!found) throw new Error('transfer not found')
  const [calls0, ns0, cpu0] = [calls, readNs, process.cpuUsage()]
  await replayBlock(t.chain, found.block, (_tx, i) => (i === found.index ? new StructLogger() : undefined), found.index)
  const cpu = process.cpuUsage(cpu0)
  perReplay.calls.push(calls - calls0)
  perReplay.readUs.push((readNs - ns0) / 1000)
  perReplay.cpuMs.push((cpu.user + cpu.system) / 1000)
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const warm = (xs: number[]) => median(xs.slice(Math.min(WARM_FROM, xs.length - 1)))
console.log(
  `${REPLAYS} replays on neighbouring parents, medians after ${WARM_FROM}: history calls ${warm(perReplay.calls)}, ` +
    `µs in them ${warm(perReplay.readUs).toFixed(1)}, replay CPU ${warm(perReplay.cpuMs).toFixed(3)} ms`,
)
t.close()
