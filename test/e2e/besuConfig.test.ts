/**
 * A configuration file written for Besu, as private-network quickstarts ship it (every key Basalt
 * reads the way Besu reads it): the node starts on it unchanged, serves the groups it lists (the
 * ones of features Basalt lacks answer as Besu does with those features off), runs the sequenced
 * pool with the file's per-sender limit, and records revert reasons.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { type StartedNode, signTransfer, startNode } from './harness.ts'

const APIS = '["EEA","WEB3","ETH","NET","TRACE","DEBUG","ADMIN","TXPOOL","PRIV","PERM","QBFT","PLUGINS"]'
/** A quickstart's member-node file, with its paths and ports made local. */
const CONFIG = `# Node Information
logging="INFO"
host-allowlist=["*"]
min-gas-price=0
revert-reason-enabled=true

# Transaction Pool
tx-pool="SEQUENCED"
tx-pool-no-local-priority=true
tx-pool-limit-by-account-percentage=0.04
tx-pool-max-size=100
tx-pool-retention-hours=999

# P2P network
sync-mode="FULL"
nat-method="NONE"
discovery-enabled=true
max-peers=25

# JSON-RPC
rpc-http-enabled=true
rpc-http-host="127.0.0.1"
rpc-http-api=${APIS}
rpc-http-cors-origins=["all"]

# WebSockets API
rpc-ws-enabled=true
rpc-ws-host="127.0.0.1"
rpc-ws-api=${APIS}

# Metrics
metrics-enabled=false
`

let node: StartedNode
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'basalt-besu-config-'))
  const file = join(dir, 'config.toml')
  writeFileSync(file, CONFIG)
  // Sealing waits for the period, so that the pool keeps what it is sent.
  node = await startNode({ args: ['--config-file', file, '--block-period', '3600'] })
})

afterAll(async () => {
  await node?.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

const error = async (method: string, params: unknown[] = []) =>
  (await node.rpcRaw({ jsonrpc: '2.0', id: 1, method, params })).json.error

describe("a Besu quickstart's config file", () => {
  it('starts the node and enables every group it lists', async () => {
    const modules = await node.rpc<Record<string, string>>('rpc_modules')
    for (const api of JSON.parse(APIS) as string[]) expect(modules[api.toLowerCase()]).toBe('1.0')
  })

  it('answers PERM, PRIV, EEA and PLUGINS as Besu does with permissioning, privacy and plugins off', async () => {
    expect(await error('perm_getNodesAllowlist')).toEqual({
      code: -32000,
      message: 'Node allowlist has not been enabled',
    })
    expect(await error('perm_addAccountsToAllowlist', [[`0x${'11'.repeat(20)}`]])).toEqual({
      code: -32000,
      message: 'Account allowlist has not been enabled',
    })
    expect(await error('perm_reloadPermissionsFromFile')).toEqual({
      code: -32000,
      message: 'Node/Account allowlist has not been enabled',
    })
    expect(await error('priv_getTransactionCount', [`0x${'11'.repeat(20)}`, 'group'])).toEqual({
      code: -50100,
      message: 'Privacy is not enabled',
    })
    expect(await error('eea_sendRawTransaction', ['0x00'])).toEqual({ code: -50100, message: 'Privacy is not enabled' })
    expect(await error('plugins_reloadPluginConfig', ['some-plugin'])).toEqual({
      code: -60000,
      message: 'Plugin not found',
    })
    expect(await error('plugins_reloadPluginConfig')).toEqual({ code: -32602, message: 'Invalid plug in name params' })
  })

  it("keeps a sender's queue within the file's share of the pool (0.04 of 100: 4 nonces)", async () => {
    const key = node.config.accounts[2].privateKey as Hex
    const send = async (nonce: number) => {
      const raw = await signTransfer(key, { nonce, to: `0x${'22'.repeat(20)}`, value: 1n })
      return (await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] })).json
    }
    for (let n = 0; n < 4; n++) expect((await send(n)).result).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await send(4)).error).toEqual({
      code: -32000,
      message: 'Transaction nonce is too distant from current sender nonce',
    })
    const content = await node.rpc<{ pending: Record<string, unknown> }>('txpool_content')
    expect(Object.values(content.pending).length).toBe(1)
  })
})

describe("Besu's --profile=ENTERPRISE", () => {
  it('runs the sequenced pool with 0.15 of the pool per sender (615 nonces of 4096)', async () => {
    const enterprise = await startNode({ args: ['--profile=ENTERPRISE', '--block-period', '3600'] })
    try {
      const key = enterprise.config.accounts[3].privateKey as Hex
      const send = async (nonce: number) => {
        const raw = await signTransfer(key, { nonce, to: `0x${'33'.repeat(20)}`, value: 1n })
        return (await enterprise.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }))
          .json
      }
      expect((await send(614)).result).toMatch(/^0x[0-9a-f]{64}$/)
      expect((await send(615)).error?.message).toBe('Transaction nonce is too distant from current sender nonce')
    } finally {
      await enterprise.cleanup()
    }
  })
})
