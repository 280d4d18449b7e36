/**
 * eth/68 over the peer manager: the STATUS handshake (network id, genesis and EIP-2124 fork id from
 * our chain), answers to header/body/receipt/pooled-transaction requests, and gossip — new blocks in
 * full to √n peers and by hash to the rest, transactions likewise (blob transactions by hash only).
 * Announced blocks whose parent we hold are imported at once; others, and a peer whose head we lack
 * after STATUS, start a sync (`blockSync.ts`). Imports go through the importer the node passes in.
 */
import type { Block } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { decodeBlobTxOffThread } from '../../chain/blobTxDecode.ts'
import { decodeBlockRlp } from '../../chain/blockRlp.ts'
import type { Chain } from '../../chain/chain.ts'
import { bigintToBytes, bytesToBigint, bytesToHex, equalBytes } from '../../primitives/hex.ts'
import { createLogger } from '../../primitives/logger.ts'
import type { TxPool } from '../../txpool/txPool.ts'
import type { PeerHandle, SubProtocol, SubProtocolHandler } from '../peerManager.ts'
import { DisconnectReason } from '../transport.ts'
import type { BlockSync } from './blockSync.ts'
import { serveBodies, serveHeaders, serveReceipts } from './chainServer.ts'
import { EthPeer } from './ethPeer.ts'
import { checkForkId, type ForkPoint, forkIdAt, forkSchedule } from './forkId.ts'
import {
  bytes,
  decodeAnnouncementHashes,
  decodeHeaderQuery,
  decodeRequest,
  decodeStatus,
  ETH_LENGTH,
  ETH_VERSION,
  EthCode,
  encodeAnnouncement,
  encodeRequest,
  encodeStatus,
  list,
  txToWire,
  wireToTxBytes,
} from './messages.ts'

const log = createLogger('eth')
const STATUS_TIMEOUT_MS = 5000

type Nested = Uint8Array | Nested[]

export interface EthDeps {
  chain: Chain
  pool: TxPool
  networkId: bigint
  sync: BlockSync
  /** Validates, executes and stores a block as the new head. */
  importBlock(block: Block): Promise<void>
  /**
   * Whether the head follows the peers (block gossip and sync); false when a consensus client
   * drives it over the Engine API, where blocks are still served but neither announced nor taken.
   */
  isFollowingPeers: boolean
}

/** What admin_peers shows of a peer's eth state. */
export interface EthPeerInfo {
  version: number
  difficulty: bigint
  head: Uint8Array
}

export class EthProtocol implements SubProtocol {
  readonly name = 'eth'
  readonly version = ETH_VERSION
  readonly length = ETH_LENGTH
  private readonly peers = new Map<string, EthPeer>()
  private readonly schedule: ForkPoint[]
  private pendingTxs: TypedTransaction[] = []
  private readonly unsubscribe: (() => void)[] = []

  private readonly deps: EthDeps

  constructor(deps: EthDeps) {
    this.deps = deps
    this.schedule = forkSchedule(deps.chain.common, deps.chain.genesis.header.timestamp)
    this.unsubscribe.push(deps.chain.onNewBlock(({ block }) => this.announceBlock(block)))
    this.unsubscribe.push(deps.pool.onAdded((t) => this.queueTx(t.tx)))
  }

  stop(): void {
    for (const fn of this.unsubscribe) fn()
  }

  /** The eth state of a peer that completed STATUS. */
  peerInfo(id: string): EthPeerInfo | undefined {
    const p = this.peers.get(id)
    return p?.status && { version: p.status.version, difficulty: p.td, head: p.headHash }
  }

  private ready(): EthPeer[] {
    return [...this.peers.values()].filter((p) => p.isReady)
  }

  attach(handle: PeerHandle): SubProtocolHandler {
    const peer = new EthPeer(handle)
    this.peers.set(handle.id, peer)
    const { chain } = this.deps
    const head = chain.head
    peer.send(
      EthCode.status,
      encodeStatus({
        version: ETH_VERSION,
        networkId: this.deps.networkId,
        td: chain.getTotalDifficulty(head.hash()) ?? 0n,
        head: head.hash(),
        genesis: chain.genesis.hash(),
        forkId: forkIdAt(chain.genesis.hash(), this.schedule, head.header),
      }),
    )
    const timer = setTimeout(() => {
      if (!peer.isReady) handle.disconnect(DisconnectReason.timeout)
    }, STATUS_TIMEOUT_MS)
    return {
      onMessage: (code, payload) => {
        this.onMessage(peer, code, payload).catch((e) => {
          log.debug('eth message failed', { peer: peer.id.slice(0, 16), code, error: (e as Error).message })
          handle.disconnect(DisconnectReason.subprotocolError)
        })
      },
      onClose: () => {
        clearTimeout(timer)
        peer.close()
        if (this.peers.get(handle.id) === peer) this.peers.delete(handle.id)
      },
    }
  }

  private onStatus(peer: EthPeer, payload: Uint8Array): void {
    const s = decodeStatus(payload)
    const { chain } = this.deps
    const reason =
      s.version !== ETH_VERSION
        ? `eth version ${s.version}`
        : s.networkId !== this.deps.networkId
          ? `network id ${s.networkId}, ours ${this.deps.networkId}`
          : !equalBytes(s.genesis, chain.genesis.hash())
            ? `genesis ${bytesToHex(s.genesis)}`
            : checkForkId(chain.genesis.hash(), this.schedule, chain.head.header, s.forkId)
    if (reason) {
      log.info('peer refused at STATUS', { peer: peer.id.slice(0, 16), reason })
      peer.handle.disconnect(DisconnectReason.uselessPeer)
      return
    }
    peer.status = s
    peer.td = s.td
    peer.headHash = s.head
    this.syncFrom(peer)
  }

  /** Syncs from the ready peer with the most difficulty whose head we lack (a cue that we are behind). */
  syncFromBestPeer(): void {
    const lacking = this.ready().filter((p) => !this.deps.chain.store.hasBlock(p.headHash))
    const best = lacking.reduce<EthPeer | undefined>((a, p) => (a && a.td >= p.td ? a : p), undefined)
    if (best) this.syncFrom(best)
  }

  private syncFrom(peer: EthPeer): void {
    if (this.deps.isFollowingPeers) void this.deps.sync.requestSync(peer)
  }

  private async onMessage(peer: EthPeer, code: number, payload: Uint8Array): Promise<void> {
    if (code === EthCode.status) return this.onStatus(peer, payload)
    if (!peer.isReady) throw new Error('message before STATUS')
    const { chain, pool } = this.deps
    switch (code) {
      case EthCode.getBlockHeaders: {
        const { id, body } = decodeRequest(payload)
        peer.send(EthCode.blockHeaders, encodeRequest(id, serveHeaders(chain, decodeHeaderQuery(body))))
        return
      }
      case EthCode.getBlockBodies: {
        const { id, body } = decodeRequest(payload)
        peer.send(EthCode.blockBodies, encodeRequest(id, await serveBodies(chain, body.map(bytes))))
        return
      }
      case EthCode.getReceipts: {
        const { id, body } = decodeRequest(payload)
        peer.send(EthCode.receipts, encodeRequest(id, serveReceipts(chain, body.map(bytes))))
        return
      }
      case EthCode.getPooledTransactions: {
        const { id, body } = decodeRequest(payload)
        const txs = body.map((h) => pool.get(bytesToHex(bytes(h)))?.tx).filter((t) => t !== undefined)
        peer.send(EthCode.pooledTransactions, encodeRequest(id, txs.map(txToWire)))
        return
      }
      case EthCode.blockHeaders:
      case EthCode.blockBodies:
      case EthCode.pooledTransactions:
      case EthCode.receipts: {
        const { id, body } = decodeRequest(payload)
        peer.resolveResponse(code, id, body)
        return
      }
      case EthCode.newBlockHashes:
        return this.onBlockHashes(peer, list(RLP.decode(payload) as Nested))
      case EthCode.newBlock:
        return this.onNewBlock(peer, list(RLP.decode(payload) as Nested))
      case EthCode.transactions:
        return this.addTxs(peer, list(RLP.decode(payload) as Nested))
      case EthCode.newPooledTransactionHashes: {
        const wanted = decodeAnnouncementHashes(payload).filter((h) => {
          peer.knownTxs.add(bytesToHex(h))
          return !pool.get(bytesToHex(h))
        })
        if (wanted.length > 0) await this.addTxs(peer, await peer.getPooledTransactions(wanted))
        return
      }
    }
  }

  private onBlockHashes(peer: EthPeer, items: Nested[]): void {
    let unknown: Uint8Array | undefined
    for (const item of items) {
      const hash = bytes(list(item)[0])
      peer.knownBlocks.add(bytesToHex(hash))
      if (!this.deps.chain.store.hasBlock(hash)) unknown = hash
    }
    if (!unknown) return
    peer.headHash = unknown
    this.syncFrom(peer)
  }

  private async onNewBlock(peer: EthPeer, items: Nested[]): Promise<void> {
    const block = await decodeBlockRlp(this.deps.chain, RLP.encode(list(items[0])))
    const hash = block.hash()
    peer.knownBlocks.add(bytesToHex(hash))
    peer.headHash = hash
    peer.td = bytesToBigint(bytes(items[1]))
    const { chain } = this.deps
    if (chain.store.hasBlock(hash) || !this.deps.isFollowingPeers) return
    if (this.deps.sync.status() || !chain.store.hasBlock(block.header.parentHash)) {
      this.syncFrom(peer)
      return
    }
    await this.deps.importBlock(block)
  }

  private async addTxs(peer: EthPeer, items: Nested[]): Promise<void> {
    const common = this.deps.chain.commonForNextBlock()
    for (const item of items) {
      const raw = wireToTxBytes(item)
      let tx: TypedTransaction
      if (raw[0] === 3) tx = await decodeBlobTxOffThread(common, raw)
      else tx = createTxFromRLP(raw, { common })
      const hash = bytesToHex(tx.hash())
      peer.knownTxs.add(hash)
      if (this.deps.pool.get(hash)) continue
      // A transaction the pool refuses (stale nonce, underpriced, …) is not the peer's fault.
      await this.deps.pool.add(tx, { isLocal: false }).catch(() => undefined)
    }
  }

  /** Sends a new head to the peers that lack it: in full to √n of them, by hash to the rest. */
  private announceBlock(block: Block): void {
    if (!this.deps.isFollowingPeers || this.deps.sync.status()) return
    const key = bytesToHex(block.hash())
    const targets = this.ready().filter((p) => !p.knownBlocks.has(key))
    if (targets.length === 0) return
    const td = this.deps.chain.getTotalDifficulty(block.hash()) ?? 0n
    const full = Math.ceil(Math.sqrt(targets.length))
    const fullMsg = RLP.encode([block.raw() as Nested[], bigintToBytes(td)])
    const hashMsg = RLP.encode([[block.hash(), bigintToBytes(block.header.number)]])
    for (const [i, p] of targets.entries()) {
      p.knownBlocks.add(key)
      p.send(i < full ? EthCode.newBlock : EthCode.newBlockHashes, i < full ? fullMsg : hashMsg)
    }
  }

  private queueTx(tx: TypedTransaction): void {
    if (this.pendingTxs.push(tx) === 1) queueMicrotask(() => this.flushTxs())
  }

  /** Sends the transactions added since the last flush: in full to √n peers, as hashes to the rest. */
  private flushTxs(): void {
    const txs = this.pendingTxs
    this.pendingTxs = []
    const peers = this.ready()
    const full = Math.ceil(Math.sqrt(peers.length))
    for (const [i, p] of peers.entries()) {
      const fresh = txs.filter((t) => !p.knownTxs.has(bytesToHex(t.hash())))
      if (fresh.length === 0) continue
      for (const t of fresh) p.knownTxs.add(bytesToHex(t.hash()))
      const inFull = i < full ? fresh.filter((t) => t.type !== 3) : []
      const byHash = fresh.filter((t) => !(inFull as TypedTransaction[]).includes(t))
      if (inFull.length > 0) p.send(EthCode.transactions, RLP.encode(inFull.map(txToWire)))
      if (byHash.length > 0) p.send(EthCode.newPooledTransactionHashes, encodeAnnouncement(byHash))
    }
  }
}
