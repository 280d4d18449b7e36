/**
 * Random Besu-style genesis files (test/fixtures/randomGenesis.ts) on the compiled binary: each one
 * either starts a node that answers eth_chainId and eth_getBlockByNumber(0), or stops `basalt run`
 * at once with one line naming the file and the field (exit code 1, no stack trace). Seeded and
 * bounded in count; GENESIS_FUZZ_SEED replays another run.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseGenesisText } from '../../src/chain/genesis.ts'
import { randomGenesis, seededRandom } from '../fixtures/randomGenesis.ts'
import { runToExit, startNode } from './harness.ts'

const SEED = Number(process.env.GENESIS_FUZZ_SEED ?? 0xb35)
const FILES = 10
const dir = mkdtempSync(join(tmpdir(), 'basalt-genesis-fuzz-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('random Besu genesis files on the binary', () => {
  it(`start and answer, or are refused in one line (${FILES} files, seed ${SEED})`, async () => {
    const random = seededRandom(SEED)
    let started = 0
    let refused = 0
    for (let i = 0; i < FILES; i++) {
      const chainId = 3000 + i
      const file = join(dir, `genesis-${i}.json`)
      const text = JSON.stringify(randomGenesis(random, chainId))
      writeFileSync(file, text)
      let isValid = true
      try {
        parseGenesisText(text, file)
      } catch {
        isValid = false
      }
      const args = ['--genesis-file', file, '--p2p-enabled=false', '--rpc-ws-enabled=false']
      if (!isValid) {
        const { code, stderr } = await runToExit([...args, '--rpc-http-port', '0'], 15_000)
        expect(`${text} → ${code}`).toBe(`${text} → 1`)
        expect(stderr.split('\n')).toEqual([
          expect.stringMatching(new RegExp(`^basalt: invalid genesis file ${file}: `)),
        ])
        refused++
        continue
      }
      const node = await startNode({ args, timeoutMs: 30_000 })
      try {
        expect(await node.rpc('eth_chainId')).toBe(`0x${chainId.toString(16)}`)
        const genesis = await node.rpc<{ number: string; hash: string }>('eth_getBlockByNumber', ['0x0', false])
        expect(genesis.number).toBe('0x0')
        expect(genesis.hash).toMatch(/^0x[0-9a-f]{64}$/)
        started++
      } finally {
        await node.cleanup()
      }
    }
    expect(started + refused).toBe(FILES)
    expect(started).toBeGreaterThan(0)
  }, 300_000)
})
