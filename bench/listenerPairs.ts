/**
 * Two basalt binaries (or one with two sets of options) on the shared harness's read rows under the
 * same load: both are started, each deploys the harness's token, and they take turns phase by phase
 * as the harness runs them (per method: 1,000 requests of warm-up at c=32, then `[requests]` at c=1
 * and at c=32), each phase on new keep-alive connections as the harness opens them (so that listener
 * threads, `--rpc-listener-threads`, started by an earlier phase get their share). Prints req/s and
 * node CPU per request (all the process's threads) by binary, method and concurrency, per round.
 * Usage: `bun bench/listenerPairs.ts <binary A> <binary B> [rounds] [requests] [-- options of B]`
 * (defaults 3 and 5,000).
 */
import { connect, type Socket } from 'node:net'
import { type BenchNode, startBenchNode } from './benchNode.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const [binaryA, binaryB] = process.argv.slice(2, 4)
if (!binaryA || !binaryB)
  throw new Error('usage: bun bench/listenerPairs.ts <A> <B> [rounds] [requests] [-- B options]')
const dash = process.argv.indexOf('--')
const ROUNDS = Number(process.argv[4] ?? 3)
const REQUESTS = Number(process.argv[5] ?? 5_000)
const B_ARGS = dash > 0 ? process.argv.slice(dash + 1) : []
const WARMUP = 1_000
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
/** Bound of one phase. */
const PHASE_LIMIT_MS = 120_000

async function deployToken(node: BenchNode): Promise<string> {
  const hash = await node.rpc('eth_sendTransaction', [
    { from: OWNER, data: TOKEN_INITCODE + pad32((10n ** 30n).toString(16)), gas: '0xf4240' },
  ])
  for (let i = 0; i < 500; i++) {
    const r = (await node.rpc('eth_getTransactionReceipt', [hash])) as { contractAddress: string } | null
    if (r) return r.contractAddress
    await Bun.sleep(5)
  }
  throw new Error('no receipt')
}

/** One keep-alive connection sending `request` and waiting for each answer (Content-Length framed). */
function connection(port: number): Promise<{ send(request: Buffer): Promise<void>; close(): void }> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1')
    let buffered = Buffer.alloc(0)
    let done: (() => void) | undefined
    socket.on('data', (d: Buffer) => {
      buffered = Buffer.concat([buffered, d])
      const end = buffered.indexOf('\r\n\r\n')
      if (end < 0) return
      const length = Number(/content-length: (\d+)/i.exec(buffered.subarray(0, end).toString('latin1'))?.[1] ?? 0)
      if (buffered.length < end + 4 + length) return
      buffered = buffered.subarray(end + 4 + length)
      done?.()
    })
    socket.on('error', reject)
    socket.on('connect', () =>
      resolve({
        send: (request) =>
          new Promise<void>((ok) => {
            done = ok
            socket.write(request)
          }),
        close: () => socket.destroy(),
      }),
    )
  })
}

async function phase(port: number, body: string, count: number, concurrency: number): Promise<number> {
  const request = Buffer.from(
    `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  )
  let sent = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const c = await connection(port)
      while (sent < count && performance.now() - started < PHASE_LIMIT_MS) {
        sent++
        await c.send(request)
      }
      c.close()
    }),
  )
  return sent / ((performance.now() - started) / 1000)
}

const unlocked = ['--dev-accounts-unlocked']
const nodes = [
  await startBenchNode(binaryA, 19900, unlocked),
  await startBenchNode(binaryB, 19400, [...unlocked, ...B_ARGS]),
]
try {
  const tokens = [await deployToken(nodes[0]), await deployToken(nodes[1])]
  const bodies = (token: string) => ({
    eth_blockNumber: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    eth_getBalance: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [OWNER, 'latest'] }),
    eth_call: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: token, data: `0x70a08231${pad32(OWNER)}` }, 'latest'],
    }),
  })
  // startBenchNode's ports.
  const ports = [19900 + (process.pid % 500), 19400 + (process.pid % 500)]
  for (let round = 0; round < ROUNDS; round++) {
    const line: string[] = []
    for (const method of ['eth_blockNumber', 'eth_getBalance', 'eth_call'] as const) {
      for (const i of [0, 1]) await phase(ports[i], bodies(tokens[i])[method], WARMUP, 32)
      for (const c of [1, 32]) {
        for (const [i, node] of nodes.entries()) {
          const cpu0 = node.cpuMs()
          const rps = await phase(ports[i], bodies(tokens[i])[method], REQUESTS, c)
          const us = Math.round(((node.cpuMs() - cpu0) * 1000) / REQUESTS)
          line.push(`${i === 0 ? 'A' : 'B'} ${method} c=${c} ${Math.round(rps)}/s ${us}µs`)
        }
      }
    }
    console.log(`round ${round + 1}:\n  ${line.join('\n  ')}`)
  }
  console.log(`peak RSS (MiB): A ${nodes[0].peakRssMib().toFixed(1)}, B ${nodes[1].peakRssMib().toFixed(1)}`)
} finally {
  for (const n of nodes) await n.stop()
}
