import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  http,
  numberToHex,
  type PublicClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { bytesToHex } from '../../src/primitives/hex.ts'
import { deployCodeHex, EMITTER_RUNTIME, PING_ABI, PING_TOPIC } from '../logs/emitter.ts'
import { type StartedNode, startNode } from './harness.ts'

const ORIGIN = 'http://dapp.example'

let node: StartedNode
let client: PublicClient
let emitter: `0x${string}`
let ping: (value: bigint) => Promise<{ blockHash: `0x${string}`; blockNumber: bigint }>
const topic0 = bytesToHex(PING_TOPIC)
const word = (v: bigint) => encodeAbiParameters([{ type: 'uint256' }], [v])

beforeAll(async () => {
  // A CORS origin, so that requests with an Origin header take the router's path (see below).
  node = await startNode({ args: ['--rpc-http-cors-origins', ORIGIN] })
  const chain = defineChain({
    id: 1337,
    name: 'basalt',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  })
  const account = privateKeyToAccount(node.config.accounts[4].privateKey as `0x${string}`)
  const wallet = createWalletClient({ account, chain, transport: http() })
  client = createPublicClient({ chain, transport: http(), pollingInterval: 50 }) as PublicClient
  const deployed = await client.waitForTransactionReceipt({
    hash: await wallet.sendTransaction({ data: deployCodeHex(EMITTER_RUNTIME), gas: 200_000n }),
  })
  emitter = deployed.contractAddress!
  ping = async (value) =>
    client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: emitter, data: word(value), gas: 100_000n }),
    })
})
afterAll(async () => {
  await node?.cleanup()
})

describe('eth_getLogs', () => {
  it('answers the logs of a contract across blocks, by address and topics', async () => {
    const first = await ping(1n)
    await ping(2n)
    const logs = await node.rpc<Record<string, string>[]>('eth_getLogs', [
      { address: emitter, fromBlock: numberToHex(first.blockNumber), toBlock: 'latest' },
    ])
    expect(logs.map((l) => BigInt(l.data))).toEqual([1n, 2n])
    expect(logs[0]).toMatchObject({
      address: emitter,
      topics: [topic0, word(1n)],
      blockHash: first.blockHash,
      removed: false,
    })
    const byTopic = await node.rpc<Record<string, string>[]>('eth_getLogs', [
      { fromBlock: 'earliest', topics: [null, [word(2n), word(99n)]] },
    ])
    expect(byTopic.map((l) => BigInt(l.data))).toEqual([2n])
  })

  it('answers the same text over HTTP, in a batch and over WebSocket (as a text frame), whatever the id', async () => {
    await ping(3n)
    const params = [{ address: emitter, fromBlock: '0x0', toBlock: 'latest' }]
    const post = async (body: unknown) => {
      const res = await fetch(node.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(res.headers.get('content-type')).toContain('application/json')
      return res.text()
    }
    const expected = await node.rpc<unknown[]>('eth_getLogs', params)
    expect(expected.length).toBeGreaterThanOrEqual(3)
    for (const id of [1, 'a-long-request-id-'.repeat(8), null]) {
      const text = await post({ jsonrpc: '2.0', id, method: 'eth_getLogs', params })
      expect(text).toBe(JSON.stringify({ jsonrpc: '2.0', id, result: expected }))
    }
    const batch = JSON.parse(
      await post([
        { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params },
        { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
      ]),
    )
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 1, result: expected },
      { jsonrpc: '2.0', id: 2, result: '0x539' },
    ])
    const ws = new WebSocket(node.wsUrl)
    const frame = new Promise<unknown>((resolve, reject) => {
      ws.onmessage = (e) => resolve(e.data)
      ws.onerror = () => reject(new Error('websocket error'))
    })
    await new Promise<void>((resolve) => {
      ws.onopen = () => resolve()
    })
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'eth_getLogs', params }))
    const data = await frame
    ws.close()
    expect(typeof data).toBe('string')
    expect(JSON.parse(data as string)).toEqual({ jsonrpc: '2.0', id: 9, result: expected })
    // The WebSocket answer gave its buffer back: the next answer, written into it, is whole.
    const narrower = [
      { ...params[0], fromBlock: numberToHex(BigInt((expected.at(-1) as { blockNumber: string }).blockNumber)) },
    ]
    expect(await post({ jsonrpc: '2.0', id: 10, method: 'eth_getLogs', params: narrower })).toBe(
      JSON.stringify({ jsonrpc: '2.0', id: 10, result: expected.slice(-1) }),
    )
  })

  it('answers concurrent queries each with its own logs', async () => {
    // Not viem's getBlockNumber: its cached answer would reach a later test's filter.
    const head = BigInt(await node.rpc<string>('eth_blockNumber', []))
    const ranges = Array.from({ length: 12 }, (_, i) => ({
      address: emitter,
      fromBlock: '0x0',
      toBlock: numberToHex(head - BigInt(i % 3)),
    }))
    const one = await Promise.all(ranges.map((r) => node.rpc<unknown[]>('eth_getLogs', [r])))
    const again = await Promise.all(ranges.map((r) => node.rpc<unknown[]>('eth_getLogs', [r])))
    for (let i = 0; i < ranges.length; i++) {
      const expected = one[i % 3]
      expect(one[i]).toEqual(expected)
      expect(again[i]).toEqual(expected)
    }
    expect(one[0].length).toBeGreaterThan(one[2].length)
    // With an Origin header the request goes through the router (CORS) instead of the listener's
    // direct path; its answers give their buffers back too, and each is still whole.
    const viaRouter = async (r: (typeof ranges)[number], id: number) => {
      const res = await fetch(node.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getLogs', params: [r] }),
      })
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      return ((await res.json()) as { result: unknown[] }).result
    }
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(ranges.map((r, i) => viaRouter(r, i)))
      for (let i = 0; i < answers.length; i++) expect(answers[i]).toEqual(one[i % 3])
    }
  })

  it('answers the logs of one block by hash (EIP-234), and Block not found (-32000) for an unknown hash', async () => {
    const r = await ping(3n)
    const logs = await node.rpc<Record<string, string>[]>('eth_getLogs', [{ blockHash: r.blockHash, topics: [topic0] }])
    expect(logs.map((l) => BigInt(l.data))).toEqual([3n])
    // Besu (and geth) refuse a hash they do not know rather than answer an empty list.
    const unknown = { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ blockHash: `0x${'ab'.repeat(32)}` }] }
    expect((await node.rpcRaw(unknown)).json.error).toEqual({ code: -32000, message: 'Block not found' })
    // The node keeps serving.
    expect(await node.rpc('eth_getLogs', [{ blockHash: r.blockHash, topics: [topic0] }])).toEqual(logs)
  })

  it('decodes through viem getLogs with an event ABI', async () => {
    const logs = await client.getLogs({ address: emitter, event: PING_ABI[0], args: { a: 2n }, fromBlock: 0n })
    expect(logs.map((l) => l.args.b)).toEqual([2n])
  })

  it('refuses reversed and future ranges and blockHash with a range with -32602', async () => {
    const head = await client.getBlockNumber()
    const cases = [
      [{ fromBlock: numberToHex(head), toBlock: '0x1' }, 'Invalid filter params'],
      [{ fromBlock: '0x1', toBlock: numberToHex(head + 10n) }, 'block range extends beyond current head block'],
      [
        { blockHash: `0x${'ab'.repeat(32)}`, fromBlock: '0x1' },
        // A filter Besu cannot read: its text for the parameter (go-ethereum's words go to the debug log).
        'Invalid filter params',
      ],
    ] as const
    for (const [filter, message] of cases) {
      const { json } = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] })
      expect(json.error).toEqual({ code: -32602, message })
    }
  })
})

describe('installed filters', () => {
  it('collects new events for viem createEventFilter / getFilterChanges', async () => {
    const fromBlock = (await client.getBlockNumber()) + 1n
    const filter = await client.createEventFilter({ address: emitter, event: PING_ABI[0], fromBlock })
    expect(filter.id).toMatch(/^0x[0-9a-f]+$/)
    await ping(4n)
    await ping(5n)
    const changes = await client.getFilterChanges({ filter })
    expect(changes.map((l) => l.args.a)).toEqual([4n, 5n])
    expect(await client.getFilterChanges({ filter })).toEqual([])
    const all = await client.getFilterLogs({ filter })
    expect(all.map((l) => l.args.a)).toEqual([4n, 5n])
    expect(await client.uninstallFilter({ filter })).toBe(true)
  })

  it('collects block hashes for a block filter', async () => {
    const filter = await client.createBlockFilter()
    const r = await ping(6n)
    expect(await client.getFilterChanges({ filter })).toEqual([r.blockHash])
  })

  it('answers Filter not found (-32000) for an unknown or uninstalled filter', async () => {
    const id = await node.rpc<string>('eth_newBlockFilter')
    expect(await node.rpc('eth_uninstallFilter', [id])).toBe(true)
    expect(await node.rpc('eth_uninstallFilter', [id])).toBe(false)
    const { json } = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_getFilterChanges', params: [id] })
    expect(json.error).toEqual({ code: -32000, message: 'Filter not found' })
  })
})
