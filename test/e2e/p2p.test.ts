/**
 * Three compiled nodes on loopback form a devp2p network: A seals every second on a custom genesis,
 * B joins with --bootnodes, C with admin_addPeer. A transaction sent to C is mined by A and every
 * node holds the same block; B killed with -9 and restarted syncs back; admin_removePeer disconnects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type StartedNode, startNode, until } from './harness.ts'

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const GENESIS = {
  config: {
    chainId: 4242,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    terminalTotalDifficulty: 0,
    shanghaiTime: 0,
    cancunTime: 0,
  },
  nonce: '0x0',
  timestamp: '0x0',
  extraData: '0x',
  gasLimit: '0x1c9c380',
  difficulty: '0x0',
  baseFeePerGas: '0x3b9aca00',
  coinbase: '0x0000000000000000000000000000000000000000',
  alloc: { '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266': { balance: '0x3635c9adc5dea00000' } },
}

interface Peer {
  enode: string
  id: string
  name: string
  caps: string[]
  network: { localAddress: string; remoteAddress: string; inbound: boolean }
  port: string
  protocols: { eth?: { difficulty: string; head: string; version: number } }
}

const num = async (n: StartedNode) => BigInt(await n.rpc<string>('eth_blockNumber'))
const hashAt = async (n: StartedNode, b: bigint) =>
  (await n.rpc<{ hash: string } | null>('eth_getBlockByNumber', [`0x${b.toString(16)}`, false]))?.hash

describe('p2p network of three nodes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-p2p-'))
  const genesisFile = join(dir, 'genesis.json')
  const common = ['--rpc-http-api', 'ETH,NET,WEB3,ADMIN', '--p2p-port', '0', '--discovery-enabled=false']
  const nodes: StartedNode[] = []
  let a: StartedNode
  let b: StartedNode
  let c: StartedNode
  let enodeA: string

  const start = async (args: string[], dataPath?: string) => {
    const n = await startNode({ args: ['--genesis-file', genesisFile, ...common, ...args], dataPath })
    nodes.push(n)
    return n
  }

  beforeAll(async () => {
    writeFileSync(genesisFile, JSON.stringify(GENESIS))
    a = await start(['--miner-enabled', '--block-period', '1', '--metrics-enabled', '--metrics-port', '0'])
    enodeA = (await a.rpc<{ enode: string }>('admin_nodeInfo')).enode
    b = await start(['--bootnodes', enodeA])
    c = await start([])
  }, 60_000)

  afterAll(async () => {
    for (const n of nodes.reverse()) await n.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  it('reports a real enode and listener', async () => {
    const info = await a.rpc<{ enode: string; listenAddr: string; ports: { listener: number } }>('admin_nodeInfo')
    expect(info.enode).toMatch(/^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+\?discport=0$/)
    expect(info.listenAddr).toBe(`127.0.0.1:${info.ports.listener}`)
    expect(info.ports.listener).toBeGreaterThan(0)
    expect(await a.rpc('net_enode')).toBe(info.enode)
    expect(await a.rpc('net_listening')).toBe(true)
    // Besu's net_services: each listening service's host and port (a string).
    const ws = a.config.rpcWsPort
    const services = await a.rpc<Record<string, unknown>>('net_services')
    expect(services).toMatchObject({
      jsonrpc: { host: '127.0.0.1', port: String(a.config.rpcHttpPort) },
      ...(ws !== null && { ws: { host: '127.0.0.1', port: String(ws) } }),
      p2p: { host: '127.0.0.1', port: String(info.ports.listener) },
    })
    expect(services.graphQL).toBeUndefined()
  })

  it('joins C by admin_addPeer and lists every peer in admin_peers', async () => {
    expect(await c.rpc('admin_addPeer', [enodeA])).toBe(true)
    const peers = await until(
      'A sees B and C',
      () => a.rpc<Peer[]>('admin_peers'),
      (p) => p.length === 2,
    )
    expect(await a.rpc('net_peerCount')).toBe('0x2')
    const [peerOfC] = await until(
      'C sees A',
      () => c.rpc<Peer[]>('admin_peers'),
      (p) => p[0]?.protocols.eth !== undefined,
    )
    expect(peerOfC.id).toBe(`0x${enodeA.slice(8, 136)}`)
    expect(peerOfC.enode).toBe(enodeA.replace('?discport=0', ''))
    expect(peerOfC.caps).toContain('eth/68')
    expect(peerOfC.protocols.eth?.version).toBe(68)
    expect(peerOfC.network.remoteAddress).toBe(`127.0.0.1:${Number(peerOfC.port)}`)
    expect(peerOfC.network.inbound).toBe(false)
    expect(peers.map((p) => p.network.inbound)).toEqual([true, true])
    expect(peers.map((p) => p.name.startsWith('basalt'))).toEqual([true, true])
  }, 30_000)

  it('serves peers, head and RPC calls as Prometheus metrics', async () => {
    const port = (a.config as unknown as { metricsPort: number }).metricsPort
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    expect(text).toContain('# TYPE ethereum_peer_count gauge\nethereum_peer_count 2\n')
    expect(text).toMatch(/\nethereum_blockchain_height \d+\n/)
    expect(text).toMatch(/basalt_rpc_requests_total\{method="admin_peers",outcome="ok"\} [1-9]/)
  })

  it('mines a transaction sent to C on A, and every node holds the same block', async () => {
    const raw = await privateKeyToAccount(KEY).signTransaction({
      type: 'eip1559',
      chainId: 4242,
      to: '0x000000000000000000000000000000000000bEEF',
      value: 7n,
      gas: 21000n,
      nonce: 0,
      maxFeePerGas: parseGwei('3'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    const hash = await c.rpc<string>('eth_sendRawTransaction', [raw])
    const receipt = await until(
      'receipt on C',
      () => c.rpc<{ status: string; blockNumber: string } | null>('eth_getTransactionReceipt', [hash]),
      (r) => r !== null,
      30_000,
    )
    expect(receipt?.status).toBe('0x1')
    const at = BigInt(receipt!.blockNumber)
    await until(
      'B reaches the block',
      () => num(b),
      (n) => n >= at,
    )
    const hashes = await Promise.all([a, b, c].map((n) => hashAt(n, at)))
    expect(new Set(hashes).size).toBe(1)
    expect(await b.rpc('eth_getBalance', ['0x000000000000000000000000000000000000bEEF', 'latest'])).toBe('0x7')
  }, 60_000)

  it('syncs a follower killed with -9 back to the head after a restart', async () => {
    const before = await num(a)
    await b.stop('SIGKILL')
    await until(
      'A mines on',
      () => num(a),
      (n) => n >= before + 3n,
    )
    b = await start(['--bootnodes', enodeA], b.dataPath)
    const target = await num(a)
    await until(
      'B catches up',
      () => num(b),
      (n) => n >= target,
      30_000,
    )
    expect(await hashAt(b, target)).toBe(await hashAt(a, target))
  }, 60_000)

  it('admin_removePeer disconnects', async () => {
    expect(await c.rpc('admin_removePeer', [enodeA])).toBe(true)
    await until(
      'C has no peers',
      () => c.rpc<string>('net_peerCount'),
      (n) => n === '0x0',
      10_000,
    )
    const idOfC = (await c.rpc<{ id: string }>('admin_nodeInfo')).id
    await until(
      'A drops C',
      () => a.rpc<Peer[]>('admin_peers'),
      (p) => p.every((x) => x.id !== `0x${idOfC}`),
      10_000,
    )
  }, 20_000)

  it('refuses a malformed enode and our own', async () => {
    const bad = await a.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'admin_addPeer', params: ['enode://00@127.0.0.1:1'] })
    expect(bad.json.error.code).toBe(-32000)
    const self = await a.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'admin_addPeer', params: [enodeA] })
    expect(self.json.error).toEqual({ code: -32100, message: 'Cannot add local node as peer.' })
  })
})
