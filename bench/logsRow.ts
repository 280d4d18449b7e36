/**
 * The shared harness's eth_getLogs row against one basalt binary: deploys the harness's token,
 * sends `[transfers]` token transfers (in blocks of 20, as a burst seals them), then asks
 * `eth_getLogs` over the whole chain for the token's address `[runs]` times and reports the median
 * wall time, node CPU a request, the answer's size, and the client's own parse of it.
 * Usage: `bun bench/logsRow.ts <binary> [transfers] [runs]` (defaults 1,000 and 15); `NODE_BUN_OPTIONS`
 * is the node's BUN_OPTIONS, e.g. a CPU profile.
 */
import { startBenchNode } from './benchNode.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const binary = process.argv[2]
if (!binary) throw new Error('usage: bun bench/logsRow.ts <binary> [transfers] [runs]')
const TRANSFERS = Number(process.argv[3] ?? 1000)
const RUNS = Number(process.argv[4] ?? 15)
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'

// NODE_BUN_OPTIONS reaches the node alone (e.g. a CPU profile of it, not of this driver).
const nodeOptions = process.env.NODE_BUN_OPTIONS
const node = await startBenchNode(
  binary,
  19950,
  ['--dev-accounts-unlocked', '--rpc-http-api', 'ETH,NET,WEB3,HARDHAT,EVM'],
  {
    env: nodeOptions ? { BUN_OPTIONS: nodeOptions } : undefined,
  },
)
const rpc = node.rpc
try {
  await rpc('evm_setAutomine', [false])
  const deploy = (await rpc('eth_sendTransaction', [
    { from: OWNER, data: TOKEN_INITCODE + pad32('0xffffffffffffffff') },
  ])) as string
  await rpc('evm_mine', [])
  const token = ((await rpc('eth_getTransactionReceipt', [deploy])) as { contractAddress: string }).contractAddress
  for (let i = 0; i < TRANSFERS; i++) {
    const to = `0x${(i + 1).toString(16).padStart(40, '0')}`
    await rpc('eth_sendTransaction', [
      { from: OWNER, to: token, gas: '0x186a0', data: `0xa9059cbb${pad32(to)}${pad32('0x1')}` },
    ])
    if (i % 20 === 19 || i === TRANSFERS - 1) await rpc('evm_mine', [])
  }
  const filter = [{ fromBlock: '0x0', toBlock: 'latest', address: token }]
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: filter })
  const wall: number[] = []
  const parse: number[] = []
  let bytes = 0
  let count = 0
  const cpu0 = node.cpuMs()
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    const text = await res.text()
    const t1 = performance.now()
    const logs = JSON.parse(text).result as unknown[]
    parse.push(performance.now() - t1)
    wall.push(t1 - t0)
    bytes = text.length
    count = logs.length
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]
  console.log(
    JSON.stringify({
      logs: count,
      bytes,
      wall_ms: Math.round(median(wall) * 100) / 100,
      client_parse_ms: Math.round(median(parse) * 100) / 100,
      node_cpu_ms: Math.round(((node.cpuMs() - cpu0) / RUNS) * 100) / 100,
    }),
  )
} finally {
  await node.stop()
}
