import { Hono } from 'hono'
import { describe, expect, it } from '../runtime/testing.ts'
import { hostAndCorsGuard, hostChecker } from './httpGuard.ts'

describe('hostChecker', () => {
  it('answers each Host header by its name, whatever the previous header was', () => {
    const isAllowed = hostChecker(['localhost', '127.0.0.1', '[::1]'])
    const cases: [string | undefined, boolean][] = [
      ['127.0.0.1:8545', true],
      ['127.0.0.1:8545', true],
      ['evil.example:8545', false],
      ['evil.example:8545', false],
      ['127.0.0.1:8545', true],
      ['LOCALHOST', true],
      [undefined, false],
      ['', false],
      ['[::1]:8545', true],
      ['[::2]:8545', false],
      ['127.0.0.1', true],
    ]
    for (const [host, expected] of cases) expect([host, isAllowed(host)]).toEqual([host, expected])
    expect(hostChecker(['*'])('anything:1')).toBe(true)
  })
})

describe('hostAndCorsGuard', () => {
  it('matches the whole Origin against the CORS origins as regular expressions, as Besu does', async () => {
    const app = new Hono()
    app.use('*', hostAndCorsGuard(['*'], ['http://localhost:.*', 'https://app\\.example']))
    app.post('/', (c) => c.text('ok'))
    const status = async (origin: string) =>
      (await app.request('http://localhost/', { method: 'POST', headers: { origin } })).status
    expect(await status('http://localhost:3000')).toBe(200)
    expect(await status('https://app.example')).toBe(200)
    expect(await status('https://appxexample')).toBe(403)
    expect(await status('https://app.example.evil')).toBe(403)
    expect(await status('http://evil/http://localhost:1')).toBe(403)
    const any = new Hono()
    any.use('*', hostAndCorsGuard(['*'], ['*']))
    any.post('/', (c) => c.text('ok'))
    const res = await any.request('http://localhost/', { method: 'POST', headers: { origin: 'http://x.example' } })
    expect([res.status, res.headers.get('access-control-allow-origin')]).toEqual([200, '*'])
  })
})
