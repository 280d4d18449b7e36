/**
 * The node's peer-to-peer network, assembled: the RLPx transport with the node key as identity, the
 * peer manager, eth/68 and block sync, the kept nodes (bootnodes, the static-nodes file and
 * `admin_addPeer`). What the RPC methods read (`enode`, peers, sync) is here.
 *
 * Other modules add a subprotocol with `register()` before `start()` (see `SubProtocol` in
 * `peerManager.ts`); it is then offered in every HELLO and attached to every peer that shares it.
 *
 * With `--discovery-enabled`, discv4 (`discovery.ts`) finds more nodes from the bootnodes; the
 * bootnodes are dialed over TCP as well, so a network of a few nodes needs no discovery at all.
 */
import { existsSync, readFileSync } from 'node:fs'
import type { Block } from '@ethereumjs/block'
import { importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import type { Clock } from '../primitives/clock.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import type { TxPool } from '../txpool/txPool.ts'
import { Discovery } from './discovery.ts'
import { type Enode, formatEnode, parseEnode } from './enode.ts'
import { BlockSync, type SyncStatus } from './eth/blockSync.ts'
import { type EthPeerInfo, EthProtocol } from './eth/ethProtocol.ts'
import { PeerManager, type SubProtocol } from './peerManager.ts'
import { RlpxTransport } from './rlpxTransport.ts'
import type { Transport } from './transport.ts'

const log = createLogger('p2p')

export interface P2pConfig {
  /** The address put in our enode. */
  host: string
  /** The address the listener binds. */
  interface: string
  /** TCP port; 0 picks a free one. */
  port: number
  bootnodes: string[]
  /** JSON array of enode URLs; a missing file means none. */
  staticNodesFile: string
  maxPeers: number
  /** Most sessions dialed by other nodes (Besu's remote connections limit); absent: no limit. */
  maxInbound?: number
  isDiscoveryEnabled: boolean
}

export interface P2pDeps {
  chain: Chain
  pool: TxPool
  networkId: bigint
  nodeKey: { privateKey: Uint8Array; publicKey: Uint8Array }
  clientName: string
  clock: Clock
  /** False when a consensus client drives the head (Engine API): blocks are served, not taken. */
  isFollowingPeers: boolean
  /** Besu's nodes allowlist: whether the node listening at an endpoint may be a peer. */
  isNodePermitted?: (e: Pick<Enode, 'id' | 'host' | 'port'>) => boolean
}

/** admin_addPeer of a node the nodes allowlist does not hold. */
export class NodeNotPermittedError extends Error {
  constructor(url: string) {
    super(`node not on the nodes allowlist: ${url}`)
    this.name = 'NodeNotPermittedError'
  }
}

/** One connected peer, as admin_peers shows it. */
export interface PeerSummary {
  id: string
  enode: string
  name: string
  caps: string[]
  localAddress: string
  remoteAddress: string
  isInbound: boolean
  listenPort: number
  eth?: EthPeerInfo
}

/** Reads a static-nodes file (a JSON array of enode URLs); throws naming the file and the bad entry. */
export function readStaticNodes(file: string): Enode[] {
  if (!existsSync(file)) return []
  let urls: unknown
  try {
    urls = JSON.parse(readFileSync(file, 'utf8'))
  } catch (e) {
    throw new Error(`cannot read static nodes file ${file}: ${(e as Error).message}`)
  }
  if (!Array.isArray(urls)) throw new Error(`static nodes file ${file} must hold a JSON array of enode URLs`)
  return urls.map((u) => {
    try {
      return parseEnode(String(u))
    } catch {
      throw new Error(`static nodes file ${file}: invalid enode URL '${String(u)}'`)
    }
  })
}

export class P2pNetwork {
  readonly manager: PeerManager
  readonly eth: EthProtocol
  readonly sync: BlockSync
  private readonly transport: Transport
  private listenPort = 0
  private discovery?: Discovery
  private importTail: Promise<unknown> = Promise.resolve()

  private readonly deps: P2pDeps
  private readonly config: P2pConfig

  constructor(deps: P2pDeps, config: P2pConfig, transport?: Transport) {
    this.deps = deps
    this.config = config
    const t =
      transport ??
      new RlpxTransport({
        privateKey: deps.nodeKey.privateKey,
        publicKey: deps.nodeKey.publicKey,
        clientName: deps.clientName,
        capabilities: () => this.manager.capabilities(),
      })
    this.manager = new PeerManager(t, {
      maxPeers: config.maxPeers,
      maxInbound: config.maxInbound,
      clock: deps.clock,
      isPermitted: deps.isNodePermitted,
    })
    this.transport = t
    this.sync = new BlockSync(deps.chain, (b) => this.importBlock(b))
    this.eth = new EthProtocol({ ...deps, sync: this.sync, importBlock: (b) => this.importBlock(b) })
    this.manager.register(this.eth)
  }

  /** Adds a subprotocol (before `start`). */
  register(protocol: SubProtocol): void {
    this.manager.register(protocol)
  }

  /** Listens, then keeps the bootnodes and static nodes connected. */
  async start(): Promise<void> {
    this.listenPort = await this.transport.listen(this.config.interface, this.config.port)
    const bootnodes = this.config.bootnodes.map(parseEnode)
    for (const e of [...bootnodes, ...readStaticNodes(this.config.staticNodesFile)]) this.manager.addPeer(e)
    if (this.config.isDiscoveryEnabled) this.startDiscovery(bootnodes)
    this.manager.start()
    log.info('p2p listening', { enode: this.enode })
  }

  private startDiscovery(bootnodes: Enode[]): void {
    const discovery = new Discovery({
      privateKey: this.deps.nodeKey.privateKey,
      localId: this.nodeId,
      host: this.config.host,
      interface: this.config.interface,
      port: this.listenPort,
      onFound: (e) => this.manager.addCandidate(e),
    })
    discovery.start(bootnodes)
    this.manager.onPeerAdded((p) => {
      const port = p.session.remoteListenPort
      const [host] = p.session.remoteAddress.split(/:(?=\d+$)/)
      if (port > 0) discovery.learn({ id: p.id, host, port, discoveryPort: port })
    })
    this.discovery = discovery
  }

  get port(): number {
    return this.listenPort
  }

  get nodeId(): string {
    return this.manager.localId
  }

  /** The address other nodes reach us at (the `--p2p-host`). */
  get host(): string {
    return this.config.host
  }

  /** Our discovery port: the TCP port with discovery on, 0 without (as Besu shows it). */
  get discoveryPort(): number {
    return this.config.isDiscoveryEnabled ? this.listenPort : 0
  }

  get enode(): string {
    return formatEnode({ id: this.nodeId, host: this.host, port: this.listenPort, discoveryPort: this.discoveryPort })
  }

  peers(): PeerSummary[] {
    return this.manager.list().map((p) => ({
      id: p.id,
      enode: p.enode,
      name: p.session.clientName,
      caps: p.session.remoteCaps.map((c) => `${c.name}/${c.version}`),
      localAddress: p.session.localAddress,
      remoteAddress: p.session.remoteAddress,
      isInbound: p.session.isInbound,
      listenPort: p.session.remoteListenPort,
      eth: this.eth.peerInfo(p.id),
    }))
  }

  /**
   * Keeps the node of `url` connected; throws EnodeError for a bad URL, NodeNotPermittedError for a
   * node off the nodes allowlist; false when it is ourselves or already kept.
   */
  addPeer(url: string): boolean {
    const enode = parseEnode(url)
    if (!this.manager.isPermitted(enode)) throw new NodeNotPermittedError(url)
    return this.manager.addPeer(enode)
  }

  /** Disconnects the peers the nodes allowlist no longer holds. */
  enforcePermissions(): void {
    this.manager.enforcePermissions()
  }

  /** Disconnects and forgets the node of `url`; throws EnodeError for a bad URL. */
  removePeer(url: string): boolean {
    return this.manager.removePeer(parseEnode(url).id)
  }

  /** Starts a sync from the best peer whose head we lack, if any. */
  syncFromPeers(): void {
    this.eth.syncFromBestPeer()
  }

  syncStatus(): SyncStatus | undefined {
    return this.sync.status()
  }

  /** Imports one block at a time (announced blocks and sync share the queue). */
  private importBlock(block: Block): Promise<void> {
    const { chain, pool } = this.deps
    // Exclusive with the chain's other writers: a BFT validator imports the same sealed blocks.
    const run = this.importTail.then(async () => {
      const result = await chain.exclusive(() => importBlock(chain, block, { setHead: true }))
      if (result.isKnown) return
      const included = block.transactions.map((tx) => ({
        senderHex: bytesToHex(tx.getSenderAddress().bytes),
        nonce: tx.nonce,
      }))
      pool.onNewHead(included)
      // A sync logs its start and end; its blocks one by one only at debug level.
      const fields = { number: block.header.number, hash: bytesToHex(block.hash()), txs: included.length }
      if (this.sync.status()) log.debug('imported block', fields)
      else log.info('imported block', fields)
    })
    this.importTail = run.catch(() => undefined)
    return run
  }

  async stop(): Promise<void> {
    this.discovery?.stop()
    this.eth.stop()
    await this.manager.stop()
  }
}
