import { Hono } from 'hono'
import { createServerRuntime, type HttpServer } from './httpServer.ts'
import { runtimeTag } from './runtime.ts'
import { afterAll, describe, expect, it } from './testing.ts'

const LIMITS = { maxRequestBodyBytes: 1024, maxWsFrameBytes: 512, idleTimeoutS: 30 }
let server: HttpServer | undefined
afterAll(() => server?.stop())

async function start(): Promise<HttpServer> {
  const runtime = await createServerRuntime(LIMITS)
  const app = new Hono()
  app.get(
    '/',
    runtime.upgradeWebSocket(() => ({
      onMessage(evt, ws) {
        ws.send(`echo:${evt.data}`)
      },
    })),
  )
  app.get('/', (c) => c.text('plain'))
  app.post('/', async (c) => c.text(`got ${(await c.req.text()).length}`))
  server = await runtime.serve('127.0.0.1', 0, app.fetch)
  return server
}

function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.onopen = () => resolve(ws)
    ws.onerror = () => reject(new Error('WebSocket did not open'))
  })
}

describe('createServerRuntime', () => {
  it('serves HTTP and WebSocket on a picked port, a plain GET falling through to the next route', async () => {
    const { port } = await start()
    expect(port).toBeGreaterThan(0)
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('plain')
    const ws = await openSocket(`ws://127.0.0.1:${port}/`)
    const reply = new Promise<string>((resolve) => {
      ws.onmessage = (e) => resolve(String(e.data))
    })
    ws.send('hi')
    expect(await reply).toBe('echo:hi')
    ws.close()
  })

  it('answers a body over the limit with 413 and serves one under it', async () => {
    const url = `http://127.0.0.1:${server?.port}/`
    expect((await fetch(url, { method: 'POST', body: 'x'.repeat(1000) })).status).toBe(200)
    expect((await fetch(url, { method: 'POST', body: 'x'.repeat(2000) })).status).toBe(413)
  })

  it('closes a WebSocket that sends a frame over the limit with 1009', async () => {
    const ws = await openSocket(`ws://127.0.0.1:${server?.port}/`)
    const closed = new Promise<number>((resolve) => {
      ws.onclose = (e) => resolve(e.code)
    })
    ws.send('x'.repeat(600))
    expect(await closed).toBe(1009)
  })

  it('names the runtime and its version', () => {
    const v = process.versions as Record<string, string | undefined>
    expect(runtimeTag()).toBe(v.bun ? `bun-${v.bun}` : v.deno ? `deno-${v.deno}` : `node-${v.node}`)
  })
})
