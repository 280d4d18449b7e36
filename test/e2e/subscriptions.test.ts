import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Contract, WebSocketProvider } from 'ethers'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  http,
  type PublicClient,
  webSocket,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { deployCodeHex, EMITTER_RUNTIME, PING_ABI } from '../logs/emitter.ts'
import { type StartedNode, startNode } from './harness.ts'

const WAIT_MS = 10_000
const word = (v: bigint) => encodeAbiParameters([{ type: 'uint256' }], [v])

function within<T>(p: Promise<T>, what: string): Promise<T> {
  return Promise.race([p, Bun.sleep(WAIT_MS).then(() => Promise.reject(new Error(`timed out waiting for ${what}`)))])
}

function clients(node: StartedNode, keyIndex: number) {
  const chain = defineChain({
    id: 1337,
    name: 'basalt',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url], webSocket: [node.wsUrl] } },
  })
  const account = privateKeyToAccount(node.config.accounts[keyIndex].privateKey as `0x${string}`)
  return {
    wallet: createWalletClient({ account, chain, transport: http() }),
    client: createPublicClient({ chain, transport: http(), pollingInterval: 50 }) as PublicClient,
    // No reconnecting once the node stops: the retries' errors would land in the next test file.
    wsClient: createPublicClient({ chain, transport: webSocket(node.wsUrl, { reconnect: false }) }) as PublicClient,
  }
}

interface RpcReply {
  result?: string | boolean
  error?: { code: number; message: string }
}

/** A raw WebSocket that collects eth_subscription notifications. */
async function rawSocket(url: string) {
  const ws = new WebSocket(url)
  await within(new Promise((res) => ws.addEventListener('open', res)), 'the WebSocket to open')
  const notifications: { subscription: string; result: unknown }[] = []
  const replies = new Map<number, (v: RpcReply) => void>()
  ws.addEventListener('message', (e) => {
    const m = JSON.parse(String(e.data))
    if (m.method === 'eth_subscription') notifications.push(m.params)
    else replies.get(m.id)?.(m)
  })
  let id = 1
  const call = (method: string, params: unknown[]) => {
    const reqId = id++
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: reqId, method, params }))
    return within(new Promise<RpcReply>((res) => replies.set(reqId, res)), method)
  }
  return { ws, notifications, call }
}

describe('eth_subscribe on an automine node', () => {
  let node: StartedNode
  let c: ReturnType<typeof clients>
  let emitter: `0x${string}`
  const ping = async (v: bigint) =>
    c.client.waitForTransactionReceipt({
      hash: await c.wallet.sendTransaction({ to: emitter, data: word(v), gas: 100_000n }),
    })

  beforeAll(async () => {
    node = await startNode()
    c = clients(node, 5)
    const hash = await c.wallet.sendTransaction({ data: deployCodeHex(EMITTER_RUNTIME), gas: 200_000n })
    emitter = (await c.client.waitForTransactionReceipt({ hash })).contractAddress!
  })
  afterAll(async () => {
    await node?.cleanup()
  })

  it('is not available over HTTP (-32601, as in Besu)', async () => {
    const { json } = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })
    expect(json.error).toEqual({ code: -32601, message: 'Method not found' })
  })

  it('delivers contract events to ethers contract.on over WebSocket', async () => {
    const provider = new WebSocketProvider(node.wsUrl)
    try {
      const contract = new Contract(emitter, PING_ABI as never, provider)
      const seen = new Promise<bigint[]>((resolve) => contract.on('Ping', (a: bigint, b: bigint) => resolve([a, b])))
      await Bun.sleep(200)
      await ping(11n)
      expect(await within(seen, 'the Ping event')).toEqual([11n, 11n])
    } finally {
      await provider.destroy()
    }
  })

  it('feeds viem watchBlocks and watchContractEvent over WebSocket', async () => {
    const blocks: bigint[] = []
    const events: bigint[] = []
    let onBlock = () => {}
    let onEvent = () => {}
    const gotBlock = new Promise<void>((res) => {
      onBlock = res
    })
    const gotEvent = new Promise<void>((res) => {
      onEvent = res
    })
    const stopBlocks = c.wsClient.watchBlocks({
      onBlock: (b) => {
        blocks.push(b.number!)
        onBlock()
      },
    })
    const stopEvents = c.wsClient.watchContractEvent({
      address: emitter,
      abi: PING_ABI,
      eventName: 'Ping',
      onLogs: (logs) => {
        events.push(...logs.map((l) => l.args.b!))
        onEvent()
      },
    })
    try {
      await Bun.sleep(200)
      const r = await ping(12n)
      await within(Promise.all([gotBlock, gotEvent]), 'viem watchers')
      expect(blocks).toContain(r.blockNumber)
      expect(events).toEqual([12n])
    } finally {
      stopBlocks()
      stopEvents()
    }
  })

  it('sends removed:false logs with the block of the transaction and ends on eth_unsubscribe', async () => {
    const s = await rawSocket(node.wsUrl)
    try {
      const sub = await s.call('eth_subscribe', ['logs', { address: emitter }])
      expect(sub.result).toMatch(/^0x[0-9a-f]+$/)
      const r = await ping(13n)
      await within(
        (async () => {
          while (s.notifications.length === 0) await Bun.sleep(10)
        })(),
        'the log',
      )
      expect(s.notifications[0]).toMatchObject({
        subscription: sub.result,
        result: { address: emitter, blockHash: r.blockHash, removed: false },
      })
      expect((await s.call('eth_unsubscribe', [sub.result])).result).toBe(true)
      expect((await s.call('eth_unsubscribe', [sub.result])).error).toEqual({
        code: -32000,
        message: 'Subscription not found',
      })
    } finally {
      s.ws.close()
    }
  })

  it('accepts a syncing subscription, which stays silent on a node that is never syncing', async () => {
    const s = await rawSocket(node.wsUrl)
    try {
      const sub = await s.call('eth_subscribe', ['syncing'])
      expect(sub.result).toMatch(/^0x[0-9a-f]+$/)
      await ping(14n)
      await Bun.sleep(100)
      expect(s.notifications.filter((n) => n.subscription === sub.result)).toEqual([])
      expect((await s.call('eth_unsubscribe', [sub.result])).result).toBe(true)
    } finally {
      s.ws.close()
    }
  })
})

describe('newPendingTransactions with --block-period', () => {
  let node: StartedNode
  beforeAll(async () => {
    node = await startNode({ args: ['--block-period', '3'] })
  })
  afterAll(async () => {
    await node?.cleanup()
  })

  it('announces a transaction hash (or the transaction) before it is mined', async () => {
    const s = await rawSocket(node.wsUrl)
    try {
      const hashes = await s.call('eth_subscribe', ['newPendingTransactions'])
      const full = await s.call('eth_subscribe', ['newPendingTransactions', { includeTransactions: true }])
      const { wallet } = clients(node, 6)
      const hash = await wallet.sendTransaction({
        to: '0x000000000000000000000000000000000000beef',
        value: 1n,
        gas: 21_000n,
        chain: null,
      })
      await within(
        (async () => {
          while (s.notifications.length < 2) await Bun.sleep(10)
        })(),
        'pending notifications',
      )
      expect(await node.rpc('eth_getTransactionReceipt', [hash])).toBeNull()
      const bySub = Object.fromEntries(s.notifications.map((n) => [n.subscription, n.result]))
      expect(bySub[String(hashes.result)]).toBe(hash)
      expect(bySub[String(full.result)]).toMatchObject({
        hash,
        from: wallet.account.address.toLowerCase(),
        to: '0x000000000000000000000000000000000000beef',
        value: '0x1',
      })
    } finally {
      s.ws.close()
    }
  })
})
