/**
 * The Foundry project in test/foundry against the compiled binary, as a CI job would run it:
 * `forge script --broadcast` deploys, `forge test --fork-url` runs the project's tests on the
 * deployed state, and `cast rpc anvil_*` / `evm_*` change the chain, each change checked with cast.
 * Offline: forge compiles through test/foundry/solc.mjs (npm solc); its outputs go to a temp dir.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runProcess, type StartedNode, startNode } from './harness.ts'

const BIN = (tool: string) =>
  new URL(`../../node_modules/@foundry-rs/${tool}-linux-amd64/bin/${tool}`, import.meta.url).pathname
const PROJECT = new URL('../foundry', import.meta.url).pathname
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const STRANGER = '0x00000000000000000000000000000000005ca1ab'
let node: StartedNode
let work: string

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-ws-enabled=false'] })
  work = mkdtempSync(join(tmpdir(), 'basalt-foundry-'))
})
afterAll(async () => {
  await node?.cleanup()
  if (work) rmSync(work, { recursive: true, force: true })
})

async function run(tool: 'forge' | 'cast', args: string[], env: Record<string, string> = {}): Promise<string> {
  const { out, err, code } = await runProcess([BIN(tool), ...args], {
    cwd: PROJECT,
    timeoutMs: 120_000,
    env: {
      ...process.env,
      HOME: work,
      FOUNDRY_OUT: join(work, 'out'),
      FOUNDRY_CACHE_PATH: join(work, 'cache'),
      FOUNDRY_BROADCAST: join(work, 'broadcast'),
      NO_COLOR: '1',
      ...env,
    },
  })
  if (code !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${code}):\n${out}\n${err}`)
  return out.trim()
}

const cast = (...args: string[]) => run('cast', [...args, '--rpc-url', node.url])

describe.skipIf(!existsSync(BIN('forge')) || !existsSync(BIN('cast')))('Foundry against Basalt', () => {
  let vault: string

  it('forge script --broadcast deploys and calls; the receipts are on chain', async () => {
    await run('forge', [
      'script',
      'script/Deploy.s.sol:Deploy',
      '--rpc-url',
      node.url,
      '--broadcast',
      '--private-key',
      KEY,
    ])
    const broadcast = JSON.parse(readFileSync(join(work, 'broadcast/Deploy.s.sol/1337/run-latest.json'), 'utf8'))
    expect(broadcast.receipts.map((r: { status: string }) => r.status)).toEqual(['0x1', '0x1'])
    vault = broadcast.transactions[0].contractAddress
    expect(await cast('call', vault, 'deposits()(uint256)')).toBe('1')
    expect(await cast('balance', vault)).toBe('3000000000000000000')
  }, 180_000)

  it('forge test --fork-url runs the project tests on the deployed state', async () => {
    const out = await run('forge', ['test', '--fork-url', node.url], { VAULT: vault })
    expect(out).toContain('[PASS] testReadsTheDeployedState()')
    expect(out).toContain('[PASS] testWithdrawsOnlyAfterTheUnlockTime()')
    expect(out).toMatch(/2 tests passed, 0 failed/)
    // The fork's changes stay in forge: the chain still holds the vault's ether.
    expect(await cast('balance', vault)).toBe('3000000000000000000')
  }, 180_000)

  it('forge test --fork-url runs them against a Basalt node forked from this one', async () => {
    const forked = await startNode({ args: ['--rpc-ws-enabled=false', '--fork-url', node.url] })
    try {
      const out = await run('forge', ['test', '--fork-url', forked.url], { VAULT: vault })
      expect(out).toMatch(/2 tests passed, 0 failed/)
      expect(await forked.rpc('eth_getBalance', [vault, 'latest'])).toBe('0x29a2241af62c0000')
    } finally {
      await forked.cleanup()
    }
  }, 180_000)

  it('cast rpc anvil_* and evm_* change balance, code, time, blocks and senders', async () => {
    await cast('rpc', 'anvil_setBalance', STRANGER, '0x56bc75e2d63100000')
    expect(await cast('balance', STRANGER, '--ether')).toBe('100.000000000000000000')
    await cast('rpc', 'anvil_setCode', STRANGER, '0x60016000f3')
    expect(await cast('code', STRANGER)).toBe('0x60016000f3')
    await cast('rpc', 'anvil_setCode', STRANGER, '0x')

    const snapshot = JSON.parse(await cast('rpc', 'evm_snapshot'))
    const before = Number(await cast('block-number'))
    await cast('rpc', 'anvil_mine', '5')
    expect(Number(await cast('block-number'))).toBe(before + 5)
    expect(JSON.parse(await cast('rpc', 'evm_revert', snapshot))).toBe(true)
    expect(Number(await cast('block-number'))).toBe(before)

    // cast prints large numbers with a scientific hint after them: `1795609876 [1.795e9]`.
    const unlock = Number((await cast('call', vault, 'unlockTime()(uint256)')).split(' ')[0])
    await cast('rpc', 'evm_setNextBlockTimestamp', String(unlock))
    await cast('rpc', 'evm_mine')
    expect(Number(await cast('block', 'latest', '--field', 'timestamp'))).toBe(unlock)

    await cast('rpc', 'anvil_impersonateAccount', DEV0)
    const receipt = JSON.parse(await cast('send', '--unlocked', '--from', DEV0, vault, 'withdraw()', '--json'))
    expect(receipt.status).toBe('0x1')
    expect(await cast('balance', vault)).toBe('0')
    await cast('rpc', 'anvil_stopImpersonatingAccount', DEV0)

    await cast('rpc', 'anvil_impersonateAccount', STRANGER)
    const fromStranger = JSON.parse(
      await cast('send', '--unlocked', '--from', STRANGER, vault, 'deposit()', '--value', '1ether', '--json'),
    )
    expect(fromStranger.from).toBe(STRANGER)
    expect(await cast('call', vault, 'deposits()(uint256)')).toBe('2')
  }, 180_000)
})
