import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { devAccounts } from '../../chain/devAccounts.ts'
import { openChain, poolChainView } from '../../node/node.ts'
import { manualClock } from '../../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { DevSealer } from '../../producer/devSealer.ts'
import { afterEach, describe, expect, it } from '../../runtime/testing.ts'
import { TxPool } from '../../txpool/txPool.ts'
import { MemoryNetwork } from '../memoryTransport.ts'
import { P2pNetwork } from '../network.ts'
import { decodeRequest, EthCode, encodeAnnouncement, encodeHeaderQuery, encodeRequest } from './messages.ts'

const idOf = (n: number) => n.toString(16).padStart(128, '0')
const stops: (() => unknown)[] = []
afterEach(async () => {
  for (const fn of stops.splice(0)) await fn()
})

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}

async function node(net: MemoryNetwork, n: number, networkId = 2018n) {
  const { chain, close } = await openChain({ dataPath: ':memory:' })
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const clock = manualClock(1_700_000_000_000)
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock })
  let p2p: P2pNetwork | undefined
  const transport = net.transport(idOf(n), () => p2p?.manager.capabilities() ?? [], 30000 + n)
  p2p = new P2pNetwork(
    {
      chain,
      pool,
      networkId,
      nodeKey: { privateKey: new Uint8Array(32), publicKey: hexToBytes(`0x${idOf(n)}`) },
      clientName: `n${n}`,
      clock,
      isFollowingPeers: true,
    },
    {
      host: '127.0.0.1',
      interface: '127.0.0.1',
      port: 0,
      bootnodes: [],
      staticNodesFile: '/nonexistent/static-nodes.json',
      maxPeers: 5,
      isDiscoveryEnabled: false,
    },
    transport,
  )
  await p2p.start()
  const network = p2p
  stops.push(async () => {
    await sealer.stop()
    await network.stop()
    close()
  })
  return { chain, pool, sealer, p2p: network, transport, clock }
}

const enodeOf = (n: number) => `enode://${idOf(n)}@127.0.0.1:${30000 + n}`

/** Node 1 with `blocks` sealed, node 2 synced to it. */
async function syncedPair(blocks: number) {
  const net = new MemoryNetwork()
  const a = await node(net, 1)
  for (let i = 0; i < blocks; i++) {
    a.clock.advance(12_000)
    await a.sealer.sealBlock(true)
  }
  const b = await node(net, 2)
  b.p2p.addPeer(enodeOf(1))
  await waitFor(() => b.chain.head.header.number === BigInt(blocks))
  return { a, b }
}

type TestNode = Awaited<ReturnType<typeof node>>

/** Sends a request from `b` to `a` and resolves to the body of `a`'s answer. */
async function ask(a: TestNode, b: TestNode, code: number, body: unknown[], id = 77n) {
  b.transport.sessions[0].send('eth', code, encodeRequest(id, body))
  const answered = () =>
    a.transport.sessions[0].sent.find((m) => m.code === code + 1 && decodeRequest(m.payload).id === id)
  await waitFor(() => answered() !== undefined)
  return decodeRequest(answered()!.payload).body
}

function transfer(chain: TestNode['chain'], nonce: bigint) {
  return createFeeMarket1559Tx(
    {
      nonce,
      to: `0x${'be'.repeat(20)}`,
      value: 7n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    },
    { common: chain.commonForNextBlock() },
  ).sign(hexToBytes(devAccounts()[0].privateKey))
}

describe('EthProtocol', () => {
  it('syncs a new node to its peer, then gossips a transaction to the sealer and the sealed block back', async () => {
    const { a, b } = await syncedPair(3)
    expect(bytesToHex(b.chain.head.hash())).toBe(bytesToHex(a.chain.head.hash()))
    expect(a.p2p.peers()[0].eth?.version).toBe(68)

    const tx = transfer(b.chain, 0n)
    await b.pool.add(tx)
    await waitFor(() => a.pool.get(bytesToHex(tx.hash())) !== undefined)
    a.clock.advance(12_000)
    const sealed = await a.sealer.sealBlock(false)
    expect(sealed?.transactions.length).toBe(1)
    await waitFor(() => b.chain.head.header.number === 4n)
    expect(bytesToHex(b.chain.head.hash())).toBe(bytesToHex(sealed!.hash()))
    expect(b.pool.get(bytesToHex(tx.hash()))).toBeUndefined()
  })

  it('answers GetBlockHeaders by number with skip, in reverse, with the request id echoed', async () => {
    const { a, b } = await syncedPair(4)
    const body = await ask(
      a,
      b,
      EthCode.getBlockHeaders,
      encodeHeaderQuery({ origin: 4n, amount: 3, skip: 1, reverse: true }),
      2n ** 63n + 5n,
    )
    expect(body.map((h) => bytesToHex((h as Uint8Array[])[8]))).toEqual(['0x04', '0x02', '0x'])
  })

  it('answers GetBlockBodies and GetReceipts for known blocks, skipping unknown ones', async () => {
    const { a, b } = await syncedPair(1)
    await a.pool.add(transfer(a.chain, 0n))
    a.clock.advance(12_000)
    const block = (await a.sealer.sealBlock(false))!
    await waitFor(() => b.chain.head.header.number === 2n)
    const unknown = new Uint8Array(32).fill(9)
    const bodies = await ask(a, b, EthCode.getBlockBodies, [unknown, block.hash()])
    expect(bodies.length).toBe(1)
    expect(((bodies[0] as Uint8Array[][])[0] as Uint8Array[]).map(bytesToHex)).toEqual([
      bytesToHex(block.transactions[0].serialize()),
    ])
    const receipts = await ask(a, b, EthCode.getReceipts, [block.hash(), unknown])
    expect(receipts.length).toBe(1)
    const [receipt] = receipts[0] as Uint8Array[]
    expect(receipt[0]).toBe(2)
  })

  it('fetches announced transaction hashes with GetPooledTransactions', async () => {
    const net = new MemoryNetwork()
    const a = await node(net, 1)
    const b = await node(net, 2)
    const tx = transfer(b.chain, 0n)
    await b.pool.add(tx)
    b.p2p.addPeer(enodeOf(1))
    await waitFor(() => a.p2p.peers()[0]?.eth !== undefined && b.p2p.peers()[0]?.eth !== undefined)
    expect(a.pool.get(bytesToHex(tx.hash()))).toBeUndefined()
    b.transport.sessions[0].send('eth', EthCode.newPooledTransactionHashes, encodeAnnouncement([tx]))
    await waitFor(() => a.pool.get(bytesToHex(tx.hash())) !== undefined)
    const requests = a.transport.sessions[0].sent.filter((m) => m.code === EthCode.getPooledTransactions)
    expect(requests.map((m) => decodeRequest(m.payload).body.map((h) => bytesToHex(h as Uint8Array)))).toEqual([
      [bytesToHex(tx.hash())],
    ])
  })

  it('disconnects a peer of another network id at STATUS', async () => {
    const net = new MemoryNetwork()
    const a = await node(net, 1, 2018n)
    const b = await node(net, 2, 7n)
    b.p2p.addPeer(enodeOf(1))
    await waitFor(() => b.transport.sessions.length === 1 && b.transport.sessions[0].isClosed)
    expect(a.p2p.peers()).toEqual([])
  })
})
