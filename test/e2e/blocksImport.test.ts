/**
 * `basalt blocks import|export` on the execution-apis test chain (blocks 1..40: PoW with ommers,
 * the merge, Shanghai; no blob transactions, so no KZG load), and `basalt run` on the result.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { CONFORMANCE_DIR, hasConformanceChain } from '../fixtures/sharedConformance.ts'
import { BASALT_BIN, startNode } from './harness.ts'

const DIR = CONFORMANCE_DIR
const GENESIS = `${DIR}genesis.json`
const HAS_FIXTURES = hasConformanceChain('basalt blocks import/export of the execution-apis chain')
const tmp = mkdtempSync(join(tmpdir(), 'basalt-blocks-'))

afterAll(() => rmSync(tmp, { recursive: true, force: true }))

async function basalt(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([BASALT_BIN, ...args], { stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ])
  return { code, stdout, stderr }
}

/** The first `n` blocks of chain.rlp as separate RLP items. */
function firstBlocks(n: number): Uint8Array[] {
  const bytes = readFileSync(`${DIR}chain.rlp`)
  const out: Uint8Array[] = []
  let offset = 0
  while (out.length < n) {
    const { remainder } = RLP.decode(bytes.subarray(offset), true) as unknown as { remainder: Uint8Array }
    const end = bytes.length - remainder.length
    out.push(bytes.subarray(offset, end))
    offset = end
  }
  return out
}

function concat(items: Uint8Array[]): Uint8Array {
  return Buffer.concat(items)
}

const common = (dataPath: string) => ['--genesis-file', GENESIS, '--data-path', dataPath]

describe.skipIf(!HAS_FIXTURES)('basalt blocks', () => {
  const dataPath = join(tmp, 'data')

  it('imports a range, skips what is stored on a second run, and exports the same bytes', async () => {
    const from = join(tmp, 'chain.rlp')
    writeFileSync(from, concat(firstBlocks(45)))
    const args = [
      'blocks',
      'import',
      '--from',
      from,
      ...common(dataPath),
      '--skip-pow-validation-enabled',
      '--end-block',
      '41',
    ]
    const first = await basalt(args)
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/^imported 40 blocks \(1\.\.40\) in [\d.]+ s: .* blocks\/s, .* Mgas\/s, head 40 0x/)
    const again = await basalt(args)
    expect(again.stdout).toContain('imported 0 blocks, skipped 40 already present')
    const to = join(tmp, 'export.rlp')
    const exported = await basalt(['blocks', 'export', '--to', to, ...common(dataPath)])
    expect(exported.stdout).toBe(`exported 40 blocks (1..40) to ${to}\n`)
    expect(Buffer.compare(readFileSync(to), Buffer.from(concat(firstBlocks(40))))).toBe(0)
    const reimported = await basalt([
      'blocks',
      'import',
      '--from',
      to,
      ...common(join(tmp, 'reimport-data')),
      '--skip-pow-validation-enabled',
    ])
    expect(reimported.code).toBe(0)
    expect(reimported.stdout.replace(/ in .* Mgas\/s,/, '')).toBe(first.stdout.replace(/ in .* Mgas\/s,/, ''))
  })

  it('takes a block range with --start-block and --end-block, continuing a partial import', async () => {
    const from = join(tmp, 'range.rlp')
    writeFileSync(from, concat(firstBlocks(30)))
    const rangePath = join(tmp, 'range-data')
    const args = ['blocks', 'import', '--from', from, ...common(rangePath), '--skip-pow-validation-enabled']
    expect((await basalt([...args, '--end-block', '11'])).stdout).toMatch(/^imported 10 blocks \(1\.\.10\) .* head 10 /)
    const gap = await basalt([...args, '--start-block', '21'])
    expect(gap.code).toBe(1)
    expect(gap.stderr).toMatch(/^basalt: bad block 21 \(0x[0-9a-f]{64}\): unknown parent 0x/)
    const rest = await basalt([...args, '--start-block', '11', '--end-block', '26'])
    expect(rest.code).toBe(0)
    expect(rest.stdout).toMatch(/^imported 15 blocks \(11\.\.25\) .* head 25 /)
  })

  it.skipIf(!Bun.which('script'))('draws a progress bar with blocks/s and Mgas/s on a terminal', async () => {
    const from = join(tmp, 'tty.rlp')
    writeFileSync(from, concat(firstBlocks(12)))
    const command = [BASALT_BIN, 'blocks', 'import', '--from', from, ...common(join(tmp, 'tty-data'))]
    const proc = Bun.spawn(['script', '-qec', `${command.join(' ')} --skip-pow-validation-enabled`, '/dev/null'], {
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const out = await new Response(proc.stdout as ReadableStream).text()
    expect(await proc.exited).toBe(0)
    expect(out).toMatch(/\r\[#{30}\] 12\/12 [\d.]+ blocks\/s, [\d.]+ Mgas\/s {3}\r?\n/)
    expect(out).toMatch(/imported 12 blocks \(1\.\.12\) in [\d.]+ s: [\d.]+ blocks\/s, [\d.]+ Mgas\/s, head 12 /)
  })

  it('serves the imported chain without sealing blocks of its own', async () => {
    const node = await startNode({ dataPath, args: ['--genesis-file', GENESIS, '--rpc-ws-enabled=false'] })
    try {
      expect(await node.rpc('eth_blockNumber')).toBe('0x28')
      await Bun.sleep(1500)
      expect(await node.rpc('eth_blockNumber')).toBe('0x28')
    } finally {
      await node.cleanup()
    }
  })

  it('stops at a bad block with its number, hash and reason, keeping the blocks before it', async () => {
    const blocks = firstBlocks(12)
    const decoded = RLP.decode(blocks[9]) as unknown as Uint8Array[][]
    decoded[0][3] = new Uint8Array(32).fill(0xab)
    blocks[9] = RLP.encode(decoded as never)
    const from = join(tmp, 'bad.rlp')
    writeFileSync(from, concat(blocks))
    const badPath = join(tmp, 'bad-data')
    const r = await basalt(['blocks', 'import', '--from', from, ...common(badPath), '--skip-pow-validation-enabled'])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('imported 9 blocks (1..9)')
    expect(r.stderr).toMatch(/^basalt: bad block 10 \(0x[0-9a-f]{64}\): .*stateRoot/)
    const exported = await basalt(['blocks', 'export', '--to', join(tmp, 'bad-export.rlp'), ...common(badPath)])
    expect(exported.stdout).toContain('exported 9 blocks (1..9)')
  })

  it('refuses proof-of-work blocks without --skip-pow-validation-enabled, and a missing --from', async () => {
    const from = join(tmp, 'one.rlp')
    writeFileSync(from, concat(firstBlocks(1)))
    const r = await basalt(['blocks', 'import', '--from', from, ...common(join(tmp, 'pow-data'))])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('bad block 1')
    expect(r.stderr).toContain('--skip-pow-validation-enabled')
    const usage = await basalt(['blocks', 'import', ...common(join(tmp, 'usage-data'))])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toBe('basalt: Missing option --from\n')
  })
})
