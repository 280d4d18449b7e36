/** The JSON-RPC transport as Besu serves it: error codes, batches, host allowlist, CORS, health. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { BASALT_BIN, type StartedNode, startNode } from './harness.ts'

let node: StartedNode
beforeAll(async () => {
  node = await startNode({
    args: [
      '--rpc-http-api',
      'ETH,WEB3',
      '--rpc-http-max-batch-size',
      '3',
      '--rpc-http-cors-origins',
      'http://app.example',
    ],
  })
})
afterAll(async () => {
  await node?.cleanup()
})

function post(body: string, headers: Record<string, string> = {}) {
  return fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
}

describe('JSON-RPC over HTTP', () => {
  it('answers a parse error with -32700 and HTTP 400', async () => {
    const res = await post('{"jsonrpc":')
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700)
  })

  it('answers a malformed request with -32600', async () => {
    const { json } = await node.rpcRaw({ jsonrpc: '1.0', id: 1, method: 'eth_chainId' })
    expect(json.error.code).toBe(-32600)
  })

  it('answers an unknown method with -32601', async () => {
    const { json } = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_noSuchThing', params: [] })
    expect(json.error.code).toBe(-32601)
  })

  it('answers a known method of a disabled group with -32604', async () => {
    const { json } = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'net_version', params: [] })
    expect(json.error).toMatchObject({ code: -32604, message: 'Method not enabled' })
  })

  it("answers a bad argument with Besu's -32602 text for it", async () => {
    const { json } = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 7,
      method: 'eth_getBalance',
      params: ['0x1234', 'latest'],
    })
    expect(json.id).toBe(7)
    expect(json.error).toEqual({ code: -32602, message: 'Invalid address params' })
  })

  it('answers a batch in order and refuses one above the limit', async () => {
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] })
    const { json } = await node.rpcRaw([call(1), call(2), { jsonrpc: '2.0', id: 3, method: 'nope' }])
    expect(json.map((r: { id: number }) => r.id)).toEqual([1, 2, 3])
    expect(json[2].error.code).toBe(-32601)
    const over = await node.rpcRaw([call(1), call(2), call(3), call(4)])
    expect(over.json.error.code).toBe(-32005)
  })

  it('lists the enabled groups in rpc_modules', async () => {
    expect(await node.rpc('rpc_modules')).toEqual({ eth: '1.0', web3: '1.0', rpc: '1.0' })
  })

  it('refuses a Host outside the allowlist with HTTP 403', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', { host: 'evil.example' })
    expect(res.status).toBe(403)
    expect(await res.text()).toBe('Host not authorized.')
  })

  it('sends CORS headers to an allowed origin and refuses others', async () => {
    const ok = await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', { origin: 'http://app.example' })
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://app.example')
    const bad = await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', { origin: 'http://other.example' })
    expect(bad.status).toBe(403)
  })

  it('reports liveness and readiness', async () => {
    expect(await (await fetch(`${node.url}/liveness`)).json()).toEqual({ status: 'UP' })
    expect((await fetch(`${node.url}/readiness`)).status).toBe(200)
  })
})

describe('JSON-RPC over WebSocket', () => {
  for (const which of ['the WebSocket port', 'an upgrade on the HTTP port']) {
    it(`answers on ${which}`, async () => {
      const url = which === 'the WebSocket port' ? node.wsUrl : node.url.replace('http', 'ws')
      const ws = new WebSocket(url)
      const answer = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer')), 5000)
        ws.onopen = () => ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}')
        ws.onmessage = (e) => {
          clearTimeout(timer)
          resolve(String(e.data))
        }
        ws.onerror = () => reject(new Error('socket error'))
      })
      ws.close()
      expect(JSON.parse(answer).result).toBe('0x539')
    })
  }
})

describe('command line', () => {
  async function run(args: string[]) {
    const proc = Bun.spawn([BASALT_BIN, ...args], { stdout: 'pipe', stderr: 'pipe' })
    const code = await proc.exited
    return { code, stderr: await new Response(proc.stderr as ReadableStream).text() }
  }

  it('exits non-zero with one line naming an unknown option', async () => {
    const { code, stderr } = await run(['run', '--no-such-option'])
    expect(code).not.toBe(0)
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toContain('--no-such-option')
  })

  it('exits non-zero naming a malformed option value', async () => {
    const { code, stderr } = await run(['run', '--rpc-http-port', 'eighty'])
    expect(code).not.toBe(0)
    expect(stderr).toContain('--rpc-http-port')
  })
})
