/**
 * The Engine API listener's gatekeeping: the JWT secret generated into the data path (and reused on
 * restart), a secret file with a 0x prefix, the Host allowlist, WebSocket authentication and
 * `--engine-jwt-disabled`.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jwt } from './engineHarness.ts'
import { type StartedNode, startNode, until } from './harness.ts'

const started: StartedNode[] = []
const dir = mkdtempSync(join(tmpdir(), 'basalt-engine-auth-'))
/** A secret file written with a 0x prefix and a newline, as `openssl rand -hex 32 | sed s/^/0x/` would. */
const SECRET = new Uint8Array(32).fill(0x5a)
const SECRET_FILE = join(dir, 'prefixed.hex')
writeFileSync(SECRET_FILE, `0x${Buffer.from(SECRET).toString('hex')}\n`)
afterAll(async () => {
  await Promise.all(started.map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

async function engineNode(args: string[], dataPath?: string): Promise<{ node: StartedNode; url: string }> {
  const node = await startNode({ dataPath, args: ['--engine-rpc-enabled', '--engine-rpc-port', '0', ...args] })
  started.push(node)
  const port = (node.config as unknown as { engineRpcPort: number }).engineRpcPort
  return { node, url: `http://127.0.0.1:${port}` }
}

async function chainId(url: string, token?: string, host?: string): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  if (host) headers.host = host
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  })
  return res.status
}

const secretOf = (file: string) => Buffer.from(readFileSync(file, 'utf8').trim().replace(/^0x/, ''), 'hex')

describe('engine JWT secret', () => {
  it('generates a secret into the data path, logs where, and reuses it after a restart', async () => {
    const { node, url } = await engineNode([])
    const file = join(node.dataPath, 'jwt.hex')
    const secret = secretOf(file)
    expect(secret).toHaveLength(32)
    // The line reaches the test through the node's output pipe, which may lag behind its answers.
    const generated = `generated Engine API JWT secret file=${file}`
    expect(
      await until(
        'the generated-secret line',
        async () => node.output(),
        (o) => o.includes(generated),
        5_000,
      ),
    ).toContain(generated)
    expect(await chainId(url, await jwt(0, secret))).toBe(200)
    expect(await chainId(url, await jwt(0, new Uint8Array(32).fill(1)))).toBe(401)
    await node.stop()

    const again = await engineNode([], node.dataPath)
    expect(secretOf(file)).toEqual(secret)
    const using = `using Engine API JWT secret file=${file}`
    expect(
      await until(
        'the using-secret line',
        async () => again.node.output(),
        (o) => o.includes(using),
        5_000,
      ),
    ).toContain(using)
    expect(await chainId(again.url, await jwt(0, secret))).toBe(200)
  })

  it('reads a secret file written with a 0x prefix', async () => {
    const { url } = await engineNode(['--engine-jwt-secret', SECRET_FILE])
    expect(await chainId(url, await jwt(0, SECRET))).toBe(200)
    expect(await chainId(url)).toBe(401)
  })
})

describe('engine listener gatekeeping', () => {
  it('answers 403 to a Host outside the allowlist and 401 to a WebSocket without a token', async () => {
    const secret = SECRET
    const { url } = await engineNode([
      '--engine-jwt-secret',
      SECRET_FILE,
      '--engine-host-allowlist',
      'localhost,127.0.0.1',
    ])
    expect(await chainId(url, await jwt(0, secret), 'evil.example')).toBe(403)
    expect(await chainId(url.replace('127.0.0.1', 'localhost'), await jwt(0, secret))).toBe(200)

    const wsUrl = url.replace('http', 'ws')
    const refused = await new Promise<string>((resolve) => {
      const ws = new WebSocket(wsUrl)
      ws.onopen = () => resolve('open')
      ws.onerror = () => resolve('error')
    })
    expect(refused).toBe('error')
    const answer = await new Promise<string>((resolve, reject) => {
      void jwt(0, secret).then((token) => {
        const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${token}` } } as never)
        ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }))
        ws.onmessage = (e) => {
          resolve(String(e.data))
          ws.close()
        }
        ws.onerror = () => reject(new Error('WebSocket with a valid token refused'))
      })
    })
    expect(JSON.parse(answer)).toEqual({ jsonrpc: '2.0', id: 7, result: '0x539' })
  })

  it('serves without a token under --engine-jwt-disabled', async () => {
    const { url } = await engineNode(['--engine-jwt-disabled'])
    expect(await chainId(url)).toBe(200)
  })
})
