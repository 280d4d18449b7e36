/**
 * Listener threads (`--rpc-listener-threads`): once clients are concurrent, further listeners share
 * the HTTP port; what they answer themselves (head reads) equals the main thread's answer, a block
 * is seen by every connection the moment its send is answered, and everything they relay (other
 * methods, batches, errors, limits, probes, WebSocket sessions) is answered as before. An idle node
 * or a lone client starts none. Where the runtime cannot share a port (Deno, Node), the option is
 * ignored with a warning and the main thread answers everything.
 */
import { describe, expect, it } from 'bun:test'
import { SOURCE_RUNTIME, type StartedNode, signTransfer, startNode, stopWithSigterm } from './harness.ts'

const RECIPIENT = '0x000000000000000000000000000000000000beef'
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935'
const CONTRACT = '0x00000000000000000000000000000000c0ffee00'

/** Requests whose answers a listener thread gives itself, or relays (batches, other methods, errors). */
function requests(owner: string): unknown[] {
  const r = (method: string, params: unknown[], id: number | string = 7) => ({ jsonrpc: '2.0', id, method, params })
  return [
    r('eth_call', [{ to: HISTORY, data: `0x${'00'.repeat(32)}` }, 'latest']),
    r('eth_call', [{ to: HISTORY, data: `0x${'00'.repeat(32)}` }]),
    // A revert (code 3 with its data) and an invalid opcode, as the main thread answers them.
    r('eth_call', [{ to: CONTRACT }, 'latest', { [CONTRACT]: { code: '0x60206000fd' } }]),
    r('eth_call', [{ to: CONTRACT }, 'latest', { [CONTRACT]: { code: '0xfe' } }]),
    r('eth_getBalance', [owner, 'latest'], 'a'),
    r('eth_getBalance', [owner]),
    r('eth_getBalance', ['0x1234', 'latest']),
    r('eth_getBalance', [owner, 'earliest']),
    r('eth_getBalance', [owner, '0x0']),
    r('eth_getCode', [HISTORY, 'latest']),
    r('eth_getStorageAt', [HISTORY, '0x0', 'latest']),
    r('eth_getStorageAt', [HISTORY, `0x${'1'.repeat(65)}`, 'latest']),
    r('eth_blockNumber', []),
    r('eth_chainId', []),
    r('net_version', []),
    r('eth_nosuchmethod', []),
    r('txpool_status', []),
    [r('eth_blockNumber', [], 1), r('eth_getBalance', [owner, 'latest'], 2)],
    [r('eth_chainId', [], 1), r('eth_chainId', [], 2), r('eth_chainId', [], 3)],
    [],
    { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] },
  ]
}

/** Posts on a new connection (connections open before the threads started stay on the main thread). */
async function post(node: StartedNode, body: string): Promise<{ status: number; text: string }> {
  const headers = { 'content-type': 'application/json', connection: 'close' }
  const res = await fetch(node.url, { method: 'POST', headers, body })
  return { status: res.status, text: await res.text() }
}

const metricsOf = (node: StartedNode) =>
  node.rpc<{ rpc_listener_threads?: { listening: number; answered: number } }>('debug_metrics')

/** How many requests the threads answered since `before`, once their counts arrive (within 100 ms). */
async function answeredSince(node: StartedNode, before: number): Promise<number> {
  let answered = before
  for (let i = 0; i < 20 && answered === before; i++) {
    await Bun.sleep(50)
    answered = (await metricsOf(node)).rpc_listener_threads!.answered
  }
  return answered - before
}

/** Sends `body` on `n` connections at once; every answer must be `expected`. */
async function wave(node: StartedNode, body: string, n: number, expected: { status: number; text: string }) {
  const answers = await Promise.all(Array.from({ length: n }, () => post(node, body)))
  for (const a of answers) expect(a).toEqual(expected)
}

describe.skipIf(SOURCE_RUNTIME === undefined)('listener threads on a runtime that does not share ports', () => {
  it('are ignored with a warning, and the main thread answers everything', async () => {
    const node = await startNode({ args: ['--rpc-listener-threads', '2', '--rpc-http-api', 'ETH,NET,WEB3,DEBUG'] })
    try {
      const owner = node.config.accounts[0].address
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [owner, 'latest'] })
      const expected = await post(node, body)
      expect(JSON.parse(expected.text).result).toMatch(/^0x[0-9a-f]+$/)
      await wave(node, body, 32, expected)
      expect((await metricsOf(node)).rpc_listener_threads).toBeUndefined()
      expect(node.output()).toContain('--rpc-listener-threads ignored')
      expect(node.output()).toContain('this runtime does not share ports')
    } finally {
      await node.cleanup()
    }
  })
})

// Bun shares the port (SO_REUSEPORT); the executable is Bun's.
describe.skipIf(SOURCE_RUNTIME !== undefined)('listener threads', () => {
  it('answer as the main thread does, and see each block the moment its send is answered', async () => {
    const node = await startNode({
      args: [
        '--rpc-listener-threads',
        '1',
        '--rpc-http-api',
        'ETH,NET,WEB3,DEBUG,ANVIL',
        '--rpc-http-max-batch-size',
        '2',
      ],
    })
    try {
      const owner = node.config.accounts[0].address
      const bodies = requests(owner).map((r) => JSON.stringify(r))
      // One connection at a time: the main thread answers everything, and no thread starts.
      const expected = []
      for (const b of bodies) expected.push(await post(node, b))
      expect((await metricsOf(node)).rpc_listener_threads).toEqual({ listening: 0, answered: 0 })
      // Concurrent clients (requests of two keep-alive connections interleaved) start the thread; the
      // head's state is written within two seconds of a block.
      for (let i = 0; i < 3; i++) await Promise.all(Array.from({ length: 16 }, () => node.rpc('eth_chainId')))
      let answered = 0
      for (let round = 0; round < 60 && answered < 100; round++) {
        for (const [i, b] of bodies.entries()) await wave(node, b, 16, expected[i])
        answered = (await metricsOf(node)).rpc_listener_threads?.answered ?? 0
        if (answered < 100) await Bun.sleep(50)
      }
      expect(answered).toBeGreaterThanOrEqual(100)
      expect((await metricsOf(node)).rpc_listener_threads?.listening).toBe(1)

      // A block is seen on every connection once its send is answered (automine seals before that).
      const key = node.config.accounts[1].privateKey as `0x${string}`
      const balanceOf = (a: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [a] })
      const blockNumber = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
      for (let nonce = 0; nonce < 3; nonce++) {
        const before = (await metricsOf(node)).rpc_listener_threads!.answered
        await node.rpc('eth_sendRawTransaction', [await signTransfer(key, { to: RECIPIENT, value: 1000n, nonce })])
        const head = `0x${(nonce + 1).toString(16)}`
        const ok = (result: string) => ({ status: 200, text: `{"jsonrpc":"2.0","id":1,"result":"${result}"}` })
        await wave(node, blockNumber, 32, ok(head))
        await wave(node, balanceOf(RECIPIENT), 32, ok(`0x${(1000 * (nonce + 1)).toString(16)}`))
        // Once the block's state is written (the flush timer: within 2 s of the block), the thread
        // reads it itself, and reads the new balance.
        let seen = 0
        for (let tries = 0; tries < 60 && seen === 0; tries++) {
          await Bun.sleep(100)
          await wave(node, balanceOf(RECIPIENT), 32, ok(`0x${(1000 * (nonce + 1)).toString(16)}`))
          await wave(node, blockNumber, 32, ok(head))
          seen = await answeredSince(node, before)
        }
        expect(seen).toBeGreaterThan(0)
      }

      // Limits, probes and the host check on every connection.
      const big = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_chainId',
        params: ['x'.repeat(6 * 1024 * 1024)],
      })
      const tooBig = await Promise.all(Array.from({ length: 4 }, () => post(node, big)))
      expect(new Set(tooBig.map((a) => a.status))).toEqual(new Set([413]))
      const probes = await Promise.all(
        Array.from({ length: 16 }, async () => {
          const ready = await fetch(`${node.url}/readiness`, { headers: { connection: 'close' } })
          const headers = { host: 'evil.example', connection: 'close' }
          const denied = await fetch(node.url, { method: 'POST', headers, body: '{}' })
          return [ready.status, await ready.text(), denied.status]
        }),
      )
      for (const p of probes) expect(p).toEqual([200, '{"status":"UP"}', 403])

      // WebSocket sessions on the HTTP port, wherever the kernel puts them, get their notifications.
      const sockets = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const ws = new WebSocket(node.url.replace('http', 'ws'))
          const messages: unknown[] = []
          ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)))
          await new Promise((resolve, reject) => {
            ws.onopen = resolve
            ws.onerror = reject
          })
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
          return { ws, messages }
        }),
      )
      for (let i = 0; i < 100 && sockets.some((s) => s.messages.length === 0); i++) await Bun.sleep(20)
      await node.rpc('eth_sendRawTransaction', [await signTransfer(key, { to: RECIPIENT, value: 1n, nonce: 3 })])
      for (let i = 0; i < 100 && sockets.some((s) => s.messages.length < 2); i++) await Bun.sleep(20)
      for (const { ws, messages } of sockets) {
        const [subscribed, notification] = messages as { result?: string; params?: { result: { number: string } } }[]
        expect(subscribed.result).toMatch(/^0x/)
        expect(notification.params?.result.number).toBe('0x4')
        ws.close()
      }

      // A chain id changed by the dev tools (not in the threads' rules): every connection follows it.
      await node.rpc('anvil_setChainId', ['0x2a'])
      // The last block's state is written by now: the threads would answer, were it not for the id.
      await Bun.sleep(2_200)
      await wave(node, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }), 32, {
        status: 200,
        text: '{"jsonrpc":"2.0","id":1,"result":"0x2a"}',
      })
      // CHAINID, returned as a word.
      const chainIdCall = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ to: CONTRACT }, 'latest', { [CONTRACT]: { code: '0x4660005260206000f3' } }],
      })
      await wave(node, chainIdCall, 32, await post(node, chainIdCall))

      expect(await stopWithSigterm(node)).toEqual({ code: 0, isInTime: true, isClean: true })
    } finally {
      await node.cleanup()
    }
  }, 120_000)

  it('are not started for a lone client', async () => {
    const node = await startNode({ args: ['--rpc-listener-threads', '2', '--rpc-http-api', 'ETH,NET,WEB3,DEBUG'] })
    try {
      for (let i = 0; i < 200; i++) await node.rpc('eth_blockNumber')
      expect((await metricsOf(node)).rpc_listener_threads).toEqual({ listening: 0, answered: 0 })
    } finally {
      await node.cleanup()
    }
  }, 60_000)
})
