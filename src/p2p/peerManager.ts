/**
 * The peer table: at most one session per remote node, keyed by node id; the nodes we keep dialing
 * (static nodes, bootnodes, `admin_addPeer`), redialed with exponential backoff whenever they are
 * not connected; `--max-peers`; and the subprotocols riding each session.
 *
 * When two nodes dial each other at once, both end up with two sessions for the same pair. Each side
 * keeps the one dialed by the node with the lower id (the same choice on both sides, so exactly one
 * survives); two sessions dialed by the same node mean it reconnected, so the newer one wins.
 *
 * Another module rides the sessions by registering a `SubProtocol` before `start()` (its name,
 * version and message count go into HELLO): `attach` is called for every peer that shares it, and
 * the returned handler gets that peer's messages. eth/68 (`eth/ethProtocol.ts`) is one such module.
 */
import type { Clock } from '../primitives/clock.ts'
import { createLogger } from '../primitives/logger.ts'
import { type Enode, formatEnode } from './enode.ts'
import { type Capability, DisconnectReason, type Session, type Transport } from './transport.ts'

const log = createLogger('p2p')
const TICK_MS = 500

/** One connected peer as the subprotocols see it. */
export interface PeerHandle {
  readonly id: string
  readonly session: Session
  /** Sends an RLP-encoded message of this subprotocol; false when the session is gone. */
  send(code: number, payload: Uint8Array): boolean
  disconnect(reason: DisconnectReason): void
}

export interface SubProtocolHandler {
  onMessage(code: number, payload: Uint8Array): void
  onClose?(): void
}

/** A capability carried over every session that shares it (e.g. eth/68, istanbul/100). */
export interface SubProtocol extends Capability {
  attach(peer: PeerHandle): SubProtocolHandler
}

export interface ConnectedPeer {
  readonly id: string
  readonly session: Session
  /** The enode to reach it: its address with the TCP port it announced in HELLO. */
  readonly enode: string
  readonly handlers: Map<string, SubProtocolHandler>
}

interface Target {
  enode: Enode
  failures: number
  nextDialMs: number
  isDialing: boolean
  /** Kept nodes are redialed forever; a discovered candidate is dropped after one failure or disconnect. */
  isKept: boolean
}

export interface PeerManagerOptions {
  maxPeers: number
  clock: Clock
  /**
   * Whether the node listening at an endpoint may be a peer (Besu's nodes allowlist): others are
   * neither dialed nor kept when they dial in.
   */
  isPermitted?: (e: Pick<Enode, 'id' | 'host' | 'port'>) => boolean
  /**
   * Besu's remote connections limit: most sessions other nodes dialed, kept nodes (bootnodes, static
   * nodes, admin_addPeer) aside; absent: no limit beyond `maxPeers`.
   */
  maxInbound?: number
  backoffInitialMs?: number
  backoffMaxMs?: number
}

export class PeerManager {
  private readonly peers = new Map<string, ConnectedPeer>()
  private readonly targets = new Map<string, Target>()
  private readonly protocols: SubProtocol[] = []
  private readonly addedListeners = new Set<(p: ConnectedPeer) => void>()
  private timer?: ReturnType<typeof setInterval>
  private isStopped = false

  private readonly transport: Transport
  private readonly opts: PeerManagerOptions

  constructor(transport: Transport, opts: PeerManagerOptions) {
    this.transport = transport
    this.opts = opts
    transport.onInbound((s) => this.accept(s))
  }

  get localId(): string {
    return this.transport.localId
  }

  /** Adds a subprotocol; sessions started afterwards offer it. */
  register(protocol: SubProtocol): void {
    if (this.protocols.some((p) => p.name === protocol.name && p.version === protocol.version))
      throw new Error(`subprotocol ${protocol.name}/${protocol.version} registered twice`)
    this.protocols.push(protocol)
  }

  capabilities(): Capability[] {
    return this.protocols.map(({ name, version, length }) => ({ name, version, length }))
  }

  /** Starts redialing the kept nodes (every `TICK_MS`). */
  start(): void {
    this.timer = setInterval(() => this.tick(), TICK_MS)
    this.timer.unref?.()
    this.tick()
  }

  onPeerAdded(fn: (p: ConnectedPeer) => void): () => void {
    this.addedListeners.add(fn)
    return () => this.addedListeners.delete(fn)
  }

  list(): ConnectedPeer[] {
    return [...this.peers.values()]
  }

  get(id: string): ConnectedPeer | undefined {
    return this.peers.get(id)
  }

  /** Whether the node at `e` may be a peer (always, without a nodes allowlist). */
  isPermitted(e: Pick<Enode, 'id' | 'host' | 'port'>): boolean {
    return this.opts.isPermitted?.(e) !== false
  }

  /** Disconnects the peers the nodes allowlist no longer permits (after it changed). */
  enforcePermissions(): void {
    for (const p of [...this.peers.values()]) {
      if (this.isPermitted(endpointOf(p.session))) continue
      log.info('peer no longer permitted', { peer: p.id.slice(0, 16) })
      p.session.disconnect(DisconnectReason.requested)
    }
  }

  /** Keeps a node connected from now on; false when it is ourselves or already kept. */
  addPeer(enode: Enode): boolean {
    const existing = this.targets.get(enode.id)
    if (enode.id === this.localId || existing?.isKept) return false
    if (existing) existing.isKept = true
    else this.targets.set(enode.id, { enode, failures: 0, nextDialMs: 0, isDialing: false, isKept: true })
    this.tick()
    return true
  }

  /** Dials a discovered node once when a slot is free (not when connected or already known). */
  addCandidate(enode: Enode): void {
    if (enode.id === this.localId || this.targets.has(enode.id) || this.peers.has(enode.id)) return
    if (!this.isPermitted(enode)) return
    this.targets.set(enode.id, { enode, failures: 0, nextDialMs: 0, isDialing: false, isKept: false })
    this.tick()
  }

  /** Stops keeping a node and disconnects it; false when it was neither kept nor connected. */
  removePeer(id: string): boolean {
    const wasKept = this.targets.delete(id)
    const peer = this.peers.get(id)
    peer?.session.disconnect(DisconnectReason.requested)
    return wasKept || peer !== undefined
  }

  /** Dials every kept node that is due. Called by the timer; tests call it directly. */
  tick(): void {
    if (this.isStopped) return
    const now = this.opts.clock.nowMs()
    for (const t of this.targets.values()) {
      if (t.isDialing || this.peers.has(t.enode.id) || now < t.nextDialMs || !this.isPermitted(t.enode)) continue
      if (this.peers.size >= this.opts.maxPeers) return
      this.dial(t)
    }
  }

  private dial(t: Target): void {
    t.isDialing = true
    const { id, host, port } = t.enode
    this.transport.dial({ id, host, port }).then(
      (session) => {
        t.isDialing = false
        t.failures = 0
        this.accept(session)
      },
      (e) => {
        t.isDialing = false
        this.backOff(t)
        if (!t.isKept && this.targets.get(id) === t) this.targets.delete(id)
        log.debug('dial failed', {
          peer: id.slice(0, 16),
          error: (e as Error).message,
          retryInMs: t.nextDialMs - this.opts.clock.nowMs(),
        })
      },
    )
  }

  private backOff(t: Target): void {
    const initial = this.opts.backoffInitialMs ?? 1000
    const max = this.opts.backoffMaxMs ?? 30_000
    t.nextDialMs = this.opts.clock.nowMs() + Math.min(max, initial * 2 ** t.failures)
    t.failures++
  }

  private initiator(s: Session): string {
    return s.isInbound ? s.remoteId : this.localId
  }

  /** Takes a session after HELLO into the table, or closes it. */
  accept(session: Session): void {
    const refusal = this.refusal(session)
    if (refusal !== undefined) session.disconnect(refusal)
    else this.add(session)
  }

  /** Why a new session must close, if it must; replaces an existing session it wins over. */
  private refusal(session: Session): DisconnectReason | undefined {
    if (this.isStopped) return DisconnectReason.clientQuitting
    const id = session.remoteId
    if (id === this.localId) return DisconnectReason.sameIdentity
    if (!this.isPermitted(endpointOf(session))) {
      log.debug('refused a node not on the nodes allowlist', { peer: id.slice(0, 16), address: session.remoteAddress })
      return DisconnectReason.requested
    }
    const existing = this.peers.get(id)
    if (existing) {
      const a = this.initiator(existing.session)
      const b = this.initiator(session)
      if (a !== b && a < b) return DisconnectReason.alreadyConnected
      this.remove(existing)
      existing.session.disconnect(DisconnectReason.alreadyConnected)
      return undefined
    }
    if (this.peers.size >= this.opts.maxPeers && !this.targets.has(id)) return DisconnectReason.tooManyPeers
    const maxInbound = this.opts.maxInbound
    if (session.isInbound && maxInbound !== undefined && !this.targets.get(id)?.isKept) {
      let inbound = 0
      for (const p of this.peers.values()) if (p.session.isInbound && !this.targets.get(p.id)?.isKept) inbound++
      if (inbound >= maxInbound) return DisconnectReason.tooManyPeers
    }
    return undefined
  }

  private add(session: Session): void {
    const endpoint = endpointOf(session)
    const enode = formatEnode({ ...endpoint, discoveryPort: endpoint.port })
    const peer: ConnectedPeer = { id: session.remoteId, session, enode, handlers: new Map() }
    this.peers.set(peer.id, peer)
    log.info('peer connected', {
      peer: peer.id.slice(0, 16),
      address: session.remoteAddress,
      inbound: session.isInbound,
      client: session.clientName,
    })
    session.onClose((reason) => {
      if (this.peers.get(peer.id) !== peer) return
      this.remove(peer)
      log.info('peer disconnected', { peer: peer.id.slice(0, 16), reason })
      const t = this.targets.get(peer.id)
      if (t?.isKept) this.backOff(t)
      else this.targets.delete(peer.id)
    })
    for (const p of this.protocols) {
      if (!session.sharedCaps.some((c) => c.name === p.name && c.version === p.version)) continue
      const handle: PeerHandle = {
        id: peer.id,
        session,
        send: (code, payload) => session.send(p.name, code, payload),
        disconnect: (reason) => session.disconnect(reason),
      }
      peer.handlers.set(p.name, p.attach(handle))
    }
    session.onMessage((cap, code, payload) => {
      try {
        peer.handlers.get(cap)?.onMessage(code, payload)
      } catch (e) {
        log.debug('bad message from peer', { peer: peer.id.slice(0, 16), cap, code, error: (e as Error).message })
        session.disconnect(DisconnectReason.subprotocolError)
      }
    })
    for (const fn of this.addedListeners) fn(peer)
  }

  private remove(peer: ConnectedPeer): void {
    if (this.peers.get(peer.id) === peer) this.peers.delete(peer.id)
    for (const h of peer.handlers.values()) h.onClose?.()
    peer.handlers.clear()
  }

  async stop(): Promise<void> {
    this.isStopped = true
    clearInterval(this.timer)
    for (const p of this.peers.values()) p.session.disconnect(DisconnectReason.clientQuitting)
    for (const p of [...this.peers.values()]) this.remove(p)
    await this.transport.close()
  }
}

/** The endpoint a session's node listens at: its address with the TCP port it announced in HELLO. */
function endpointOf(session: Session): Pick<Enode, 'id' | 'host' | 'port'> {
  const [host] = session.remoteAddress.split(/:(?=\d+$)/)
  return { id: session.remoteId, host, port: session.remoteListenPort }
}
