/**
 * Besu's local permissioning on the compiled binary, with a `permissions_config.toml` of the kind
 * Besu's tutorials write: the accounts allowlist decides who may send transactions (and is changed
 * at run time by the PERM methods, which write the file back), the nodes allowlist decides who may be
 * a peer; a bad file, or a bootnode off the allowlist, stops the start with Besu's message.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { runToExit, type StartedNode, signTransfer, startNode, until } from './harness.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-permissioning-'))
const nodes: StartedNode[] = []
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

async function start(args: string[]): Promise<StartedNode> {
  const n = await startNode({ args })
  nodes.push(n)
  return n
}

const error = async (n: StartedNode, method: string, params: unknown[] = []) =>
  (await n.rpcRaw({ jsonrpc: '2.0', id: 1, method, params })).json.error

async function send(n: StartedNode, account: number, nonce = 0) {
  const raw = await signTransfer(n.config.accounts[account].privateKey as Hex, { nonce })
  return (await n.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] })).json
}

describe('the accounts allowlist', () => {
  it('lets only its accounts send, and the PERM methods change it and the file', async () => {
    const file = join(dir, 'accounts.toml')
    const n0 = await start(['--rpc-http-api', 'ETH,NET,PERM'])
    const [first, second] = n0.config.accounts.map((a) => a.address.toLowerCase())
    writeFileSync(file, `# accounts that may send\naccounts-allowlist=["${first.toUpperCase().replace('0X', '0x')}"]\n`)
    const n = await start([
      '--rpc-http-api',
      'ETH,NET,PERM',
      '--permissions-accounts-config-file-enabled',
      '--permissions-accounts-config-file',
      file,
    ])
    expect(await n.rpc('perm_getAccountsAllowlist')).toEqual([first])
    expect((await send(n, 0)).result).toMatch(/^0x/)
    expect((await send(n, 1)).error).toEqual({
      code: -32007,
      message: 'Sender account not authorized to send transactions',
    })

    expect(await n.rpc('perm_addAccountsToAllowlist', [[second]])).toBe('Success')
    expect((await send(n, 1)).result).toMatch(/^0x/)
    expect(readFileSync(file, 'utf8')).toBe(`accounts-allowlist=["${first}","${second}"]\n`)

    expect(await error(n, 'perm_addAccountsToAllowlist', [[second]])).toEqual({
      code: -32000,
      message: 'Cannot add an existing account to allowlist',
    })
    expect(await error(n, 'perm_addAccountsToAllowlist', [['0x12']])).toEqual({
      code: -32000,
      message: 'Request contains an invalid account',
    })
    expect(await error(n, 'perm_removeAccountsFromAllowlist', [[]])).toEqual({
      code: -32000,
      message: 'Request contains an empty list of accounts',
    })
    expect(await n.rpc('perm_removeAccountsFromAllowlist', [[second]])).toBe('Success')
    expect((await send(n, 1, 1)).error?.code).toBe(-32007)

    // Edited by hand, then read again on request.
    writeFileSync(file, `accounts-allowlist=["${second}"]\n`)
    expect(await n.rpc('perm_reloadPermissionsFromFile')).toBe('Success')
    expect(await n.rpc('perm_getAccountsAllowlist')).toEqual([second])
    expect((await send(n, 0, 1)).error?.code).toBe(-32007)
    // Without node permissioning, its methods answer Besu's error.
    expect(await error(n, 'perm_getNodesAllowlist')).toEqual({
      code: -32000,
      message: 'Node allowlist has not been enabled',
    })
  })

  it("stops the start on a bad file, with Besu's message", async () => {
    const file = join(dir, 'no-key.toml')
    writeFileSync(file, 'nodes-allowlist=[]\n')
    const args = ['--permissions-accounts-config-file-enabled', '--permissions-accounts-config-file', file]
    const r = await runToExit([...args, '--rpc-http-port', '0', '--rpc-ws-enabled=false'])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`accounts-allowlist config option missing in TOML config file ${file}`)
  })
})

describe('the nodes allowlist', () => {
  const GENESIS = {
    config: { chainId: 4343, londonBlock: 0, terminalTotalDifficulty: 0, shanghaiTime: 0, cancunTime: 0 },
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    alloc: {},
  }
  const p2p = ['--rpc-http-api', 'ETH,NET,ADMIN,PERM', '--p2p-port', '0', '--discovery-enabled=false']
  const enodeOf = async (n: StartedNode) => (await n.rpc<{ enode: string }>('admin_nodeInfo')).enode
  const peerCount = async (n: StartedNode) => (await n.rpc<unknown[]>('admin_peers')).length

  it('keeps out the nodes it does not hold, takes them once added, drops them once removed', async () => {
    const genesis = join(dir, 'genesis.json')
    writeFileSync(genesis, JSON.stringify(GENESIS))
    const file = join(dir, 'nodes.toml')
    writeFileSync(file, 'nodes-allowlist=[]\n')
    const a = await start([
      '--genesis-file',
      genesis,
      ...p2p,
      '--permissions-nodes-config-file-enabled=true',
      '--permissions-nodes-config-file',
      file,
    ])
    const b = await start(['--genesis-file', genesis, ...p2p])
    const enodeB = await enodeOf(b)
    expect(await error(a, 'admin_addPeer', [enodeB])).toEqual({
      code: -32000,
      message: 'Cannot add a non-permitted node as a peer',
    })
    // B keeps dialing A; A refuses it until it is on the list.
    expect(await b.rpc('admin_addPeer', [await enodeOf(a)])).toBe(true)
    await Bun.sleep(1500)
    expect(await peerCount(a)).toBe(0)
    expect(await a.rpc('perm_addNodesToAllowlist', [[enodeB]])).toBe('Success')
    expect(await a.rpc('perm_getNodesAllowlist')).toEqual([enodeB])
    await until(
      'B connected to A',
      () => peerCount(a),
      (c) => c === 1,
      40_000,
    )
    expect(await a.rpc('perm_removeNodesFromAllowlist', [[enodeB]])).toBe('Success')
    await until(
      'B dropped by A',
      () => peerCount(a),
      (c) => c === 0,
    )
    expect(readFileSync(file, 'utf8')).toBe('nodes-allowlist=[]\n')
  }, 90_000)

  it('refuses to start with a bootnode off the allowlist', async () => {
    const genesis = join(dir, 'genesis.json')
    const file = join(dir, 'nodes-empty.toml')
    writeFileSync(file, 'nodes-allowlist=[]\n')
    const bootnode = `enode://${'ab'.repeat(64)}@127.0.0.1:30399`
    const r = await runToExit([
      '--genesis-file',
      genesis,
      ...p2p,
      '--rpc-http-port',
      '0',
      '--rpc-ws-enabled=false',
      '--bootnodes',
      bootnode,
      '--permissions-nodes-config-file-enabled',
      '--permissions-nodes-config-file',
      file,
    ])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`Specified node(s) not in nodes-allowlist [${bootnode}]`)
  })
})
