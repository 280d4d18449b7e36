/** Filters and subscriptions are bounded: past the limit a request gets -32005, not more memory. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type StartedNode, startNode } from './harness.ts'

let node: StartedNode
const sockets: WebSocket[] = []

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-max-active-filters', '50'] })
})
afterAll(async () => {
  for (const ws of sockets) ws.close()
  await node?.cleanup()
})

interface Reply {
  id: number
  result?: string | boolean
  error?: { code: number; message: string }
}

function requests(method: string, count: number, params: unknown[] = []) {
  return Array.from({ length: count }, (_, id) => ({ jsonrpc: '2.0', id, method, params }))
}

/** A WebSocket whose `batch` sends one batch and resolves with its reply. */
async function socket() {
  const ws = new WebSocket(node.wsUrl)
  sockets.push(ws)
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve)
    ws.addEventListener('error', reject)
  })
  const waiting: ((r: Reply[]) => void)[] = []
  ws.addEventListener('message', (e) => {
    const m = JSON.parse(String(e.data))
    if (Array.isArray(m)) waiting.shift()?.(m)
  })
  return {
    batch: (body: unknown[]) =>
      new Promise<Reply[]>((resolve, reject) => {
        waiting.push(resolve)
        ws.send(JSON.stringify(body))
        setTimeout(() => reject(new Error('no reply within 10 s')), 10_000)
      }),
  }
}

describe('filters', () => {
  it('refuses the filter past --rpc-max-active-filters with -32005 and takes one after an uninstall', async () => {
    const { json } = await node.rpcRaw(requests('eth_newBlockFilter', 60))
    const ids = (json as Reply[]).filter((r) => r.result).map((r) => r.result as string)
    expect(ids).toHaveLength(50)
    const refused = (json as Reply[]).filter((r) => r.error)
    expect(refused).toHaveLength(10)
    expect(refused[0].error).toEqual({ code: -32005, message: 'Maximum number of active filters exceeded' })
    await expect(node.rpc('eth_newFilter', [{}])).rejects.toThrow('Maximum number of active filters exceeded')
    expect(await node.rpc('eth_uninstallFilter', [ids[0]])).toBe(true)
    expect(await node.rpc<string>('eth_newPendingTransactionFilter')).toMatch(/^0x/)
    expect(await node.rpc('eth_getFilterChanges', [ids[1]])).toEqual([])
  })
})

describe('subscriptions', () => {
  it('takes 1,000 per connection, then -32005; another connection may still subscribe', async () => {
    const first = await socket()
    const replies = await first.batch(requests('eth_subscribe', 1000, ['newHeads']))
    expect(replies.every((r) => typeof r.result === 'string')).toBe(true)
    const [over] = await first.batch(requests('eth_subscribe', 1, ['newHeads']))
    expect(over.error).toEqual({ code: -32005, message: 'Maximum number of active subscriptions exceeded' })
    const [unsubscribed] = await first.batch(requests('eth_unsubscribe', 1, [replies[0].result]))
    expect(unsubscribed.result).toBe(true)
    const [again] = await first.batch(requests('eth_subscribe', 1, ['logs']))
    expect(again.result).toMatch(/^0x/)
    const [other] = await (await socket()).batch(requests('eth_subscribe', 1, ['newHeads']))
    expect(other.result).toMatch(/^0x/)
  })

  it('takes 10,000 in all, then -32005 on any connection', async () => {
    for (let i = 0; i < 9; i++) {
      const replies = await (await socket()).batch(requests('eth_subscribe', 1000, ['syncing']))
      expect(replies.filter((r) => r.error)).toHaveLength(i < 8 ? 0 : 1)
    }
    const [over] = await (await socket()).batch(requests('eth_subscribe', 1, ['syncing']))
    expect(over.error?.code).toBe(-32005)
    expect(await node.rpc('eth_chainId')).toBe('0x539')
  })
})
