/**
 * One node per data path: a second `basalt run` (or `blocks export`) on a data path in use exits at
 * once with a clear message, and a node killed with SIGKILL leaves no lock behind.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BASALT_BIN, signTransfer, startNode } from './harness.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-lock-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function runToExit(args: string[]) {
  const startedMs = Date.now()
  const proc = Bun.spawn([BASALT_BIN, ...args], { stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
  const code = await proc.exited
  clearTimeout(timer)
  return { code, ms: Date.now() - startedMs, stderr: await new Response(proc.stderr as ReadableStream).text() }
}

describe('the data path lock', () => {
  it('refuses a second node on a data path in use, and lets a node start after a kill -9', async () => {
    const dataPath = join(dir, 'data')
    const first = await startNode({ dataPath })
    try {
      const key = first.config.accounts[0].privateKey as `0x${string}`
      const raw = await signTransfer(key, { to: '0x000000000000000000000000000000000000beef', value: 1n, nonce: 0 })
      await first.rpc('eth_sendRawTransaction', [raw])
      const second = await runToExit(['run', '--data-path', dataPath, '--rpc-http-port', '0', '--rpc-ws-port', '0'])
      expect(second.code).toBe(1)
      expect(second.stderr.trim()).toBe(
        `basalt: the data path ${dataPath} is in use by another basalt process; stop it or choose another --data-path`,
      )
      expect(second.ms).toBeLessThan(5_000)
      const exporter = await runToExit(['blocks', 'export', '--data-path', dataPath, '--to', join(dir, 'x.rlp')])
      expect(exporter.code).toBe(1)
      expect(exporter.stderr).toContain('is in use by another basalt process')
      expect(await first.rpc('eth_blockNumber')).toBe('0x1')
    } finally {
      await first.stop('SIGKILL')
    }
    const again = await startNode({ dataPath })
    try {
      expect(await again.rpc('eth_blockNumber')).toBe('0x1')
    } finally {
      await again.cleanup()
      await first.cleanup()
    }
  }, 60_000)

  it('names a data path that is a file', async () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, '')
    const { code, stderr } = await runToExit(['run', '--data-path', file, '--rpc-http-port', '0', '--rpc-ws-port', '0'])
    expect(code).toBe(1)
    expect(stderr.trim()).toBe(`basalt: --data-path ${file} is a file, not a directory`)
  })
})
