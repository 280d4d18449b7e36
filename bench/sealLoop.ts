/**
 * CPU cost of the dev chain's write path without HTTP: a transfer from a funded dev account to a new
 * address is decoded, added to the pool (sender recovery, validation) and sealed into a block of its
 * own, as automine does for a client that awaits each receipt. Prints µs per step, averaged.
 * Run: node_modules/.bin/bun --preload ./bench/patched.ts bench/sealLoop.ts [transactions] [transactions per block] [BONSAI]
 * (BONSAI: plain BONSAI without the dev chain's default state history, to measure what it costs).
 * `WORKLOAD=token` sends the shared harness's token transfers instead (the token deployed first, in
 * a block of its own before the timed run; each transfer of 1 unit to a new holder, as the harness's).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFeeMarket1559Tx, createTxFromRLP } from '@ethereumjs/tx'
import { Address, bytesToHex, createContractAddress, hexToBytes, privateToAddress } from '@ethereumjs/util'
import { openChain, poolChainView } from '../src/node/node.ts'
import { systemClock } from '../src/primitives/clock.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { DevSealer } from '../src/producer/devSealer.ts'
import { TxPool } from '../src/txpool/txPool.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const COUNT = Number(process.argv[2] ?? 2000)
const PER_BLOCK = Number(process.argv[3] ?? 1)
const STORAGE = process.argv[4] === 'BONSAI' ? { dataStorageFormat: 'BONSAI' as const, isBonsaiArchive: false } : {}
const KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const IS_TOKEN = process.env.WORKLOAD === 'token'

setLogLevel('WARN')

/** CPU milliseconds of the main thread alone (the JIT and GC threads left out), from /proc; 0 elsewhere. */
function mainThreadCpuMs(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

const dir = mkdtempSync(join(tmpdir(), 'basalt-seal-'))
try {
  const { chain, close } = await openChain({ dataPath: dir, ...STORAGE })
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 1_000_000, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock: systemClock })
  const common = chain.commonForNextBlock()
  const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }
  let firstNonce = 0
  let token: Uint8Array | undefined
  if (IS_TOKEN) {
    const data = hexToBytes(`${TOKEN_INITCODE}${pad32((10n ** 30n).toString(16))}` as `0x${string}`)
    const deploy = createFeeMarket1559Tx({ nonce: 0, value: 0n, data, gasLimit: 1_000_000n, ...fees }, { common })
    await pool.add(createTxFromRLP(deploy.sign(KEY).serialize(), { common }))
    await sealer.sealBlock(false)
    token = createContractAddress(new Address(privateToAddress(KEY)), 0n).bytes
    firstNonce = 1
  }
  const raws: Uint8Array[] = []
  for (let i = 0; i < COUNT; i++) {
    const to = new Uint8Array(20)
    new DataView(to.buffer).setUint32(16, i + 1)
    to[0] = 0x42
    const tx = createFeeMarket1559Tx(
      token === undefined
        ? { nonce: i, to, value: 1n, gasLimit: 21_000n, ...fees }
        : {
            nonce: firstNonce + i,
            to: token,
            value: 0n,
            data: hexToBytes(`0xa9059cbb${pad32(bytesToHex(to))}${pad32('1')}`),
            gasLimit: 100_000n,
            ...fees,
          },
      { common },
    ).sign(KEY)
    raws.push(tx.serialize())
  }
  let addUs = 0
  let sealUs = 0
  const cpu0 = process.cpuUsage()
  // The second half of the run is the steady state: the engine has compiled the path by then.
  const half = Math.floor(COUNT / PER_BLOCK / 2) * PER_BLOCK
  let mainCpu0 = 0
  for (let i = 0; i < COUNT; i += PER_BLOCK) {
    if (i === half) mainCpu0 = mainThreadCpuMs()
    const t0 = performance.now()
    for (let j = i; j < Math.min(COUNT, i + PER_BLOCK); j++) await pool.add(createTxFromRLP(raws[j], { common }))
    const t1 = performance.now()
    await sealer.sealBlock(false)
    const t2 = performance.now()
    addUs += (t1 - t0) * 1000
    sealUs += (t2 - t1) * 1000
  }
  const cpu = process.cpuUsage(cpu0)
  const mainUs = ((mainThreadCpuMs() - mainCpu0) * 1000) / (COUNT - half)
  const blocks = Math.ceil(COUNT / PER_BLOCK)
  console.log(
    `${COUNT} txs in ${blocks} blocks: decode+add ${(addUs / COUNT).toFixed(0)} µs/tx, seal ${(sealUs / blocks).toFixed(0)} µs/block, total ${((addUs + sealUs) / COUNT).toFixed(0)} µs/tx, CPU ${((cpu.user + cpu.system) / COUNT).toFixed(0)} µs/tx, main thread in the second half ${mainUs.toFixed(0)} µs/tx`,
  )
  close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
