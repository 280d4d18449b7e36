/**
 * The Transport over TCP: RLPx (ECIES handshake, framing, HELLO, ping) from `@ethereumjs/devp2p`,
 * of which only its `Peer` class is used — one per socket. The listener, the dialer and the peer
 * table are ours: the library's own `RLPx` class drops a live peer when two nodes dial each other at
 * once, dials itself through discovery and never reconnects. This file and `discovery.ts` are the
 * only ones that import the library, so it can be replaced.
 *
 * Subprotocol messages are snappy-compressed (devp2p v5) here, and handed up as RLP bytes.
 */
import net from 'node:net'
import type { Common } from '@ethereumjs/common'
import { Peer as RlpxPeer } from '@ethereumjs/devp2p'
import snappy from 'snappyjs'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import type { Capability, DialTarget, DisconnectReason, Session, Transport } from './transport.ts'

const log = createLogger('p2p')

// The library tells its own messages (HELLO, DISCONNECT, PING) from subprotocol ones by the class
// name `Peer`, which minification renames; the compiled binary then fails every HELLO.
if (RlpxPeer.name !== 'Peer') Object.defineProperty(RlpxPeer, 'name', { value: 'Peer' })
const HANDSHAKE_TIMEOUT_MS = 10_000
/** Messages kept per session until its handler is attached. */
const MAX_BUFFERED = 64

export interface RlpxTransportOptions {
  privateKey: Uint8Array
  /** 64-byte public key of `privateKey`. */
  publicKey: Uint8Array
  clientName: string
  /** The capabilities offered in HELLO, read when each session starts. */
  capabilities: () => Capability[]
  /** How long RLPx and HELLO may take before the connection is dropped. */
  handshakeTimeoutMs?: number
}

type Listener = (cap: string, code: number, payload: Uint8Array) => void

/** The library instantiates one object per shared capability; ours only relays messages. */
interface Channel {
  readonly name: string
  send(code: number, data: Uint8Array): void
  deliver?: (code: number, data: Uint8Array) => void
}

function channelClass(name: string) {
  return class implements Channel {
    readonly name = name
    deliver?: (code: number, data: Uint8Array) => void
    readonly version: number
    readonly send: (code: number, data: Uint8Array) => void

    constructor(version: number, _peer: unknown, send: (code: number, data: Uint8Array) => void) {
      this.version = version
      this.send = send
    }
    _handleMessage(code: number, data: Uint8Array): void {
      this.deliver?.(code, data)
    }
  }
}

function plainAddress(host: string | undefined, port: number | undefined): string {
  return `${(host ?? '').replace(/^::ffff:/, '')}:${port ?? 0}`
}

class RlpxSession implements Session {
  readonly remoteId: string
  readonly clientName: string
  readonly remoteCaps: { name: string; version: number }[]
  readonly sharedCaps: { name: string; version: number }[]
  readonly remoteListenPort: number
  readonly localAddress: string
  readonly remoteAddress: string
  private readonly channels = new Map<string, Channel>()
  private readonly isCompressed: boolean
  private listener?: Listener
  private buffered: [string, number, Uint8Array][] = []
  private closeListeners: ((reason: string) => void)[] = []
  private isClosed = false

  private readonly peer: RlpxPeer
  readonly isInbound: boolean

  constructor(peer: RlpxPeer, socket: net.Socket, isInbound: boolean) {
    this.peer = peer
    this.isInbound = isInbound
    const hello = peer.getHelloMessage()!
    this.remoteId = bytesToHex(peer.getId()!).slice(2)
    this.clientName = hello.clientId
    this.remoteCaps = hello.capabilities.map((c) => ({ name: c.name, version: c.version }))
    this.remoteListenPort = hello.port
    this.isCompressed = hello.protocolVersion >= 5
    this.localAddress = plainAddress(socket.localAddress, socket.localPort)
    this.remoteAddress = plainAddress(socket.remoteAddress, socket.remotePort)
    for (const p of peer.getProtocols() as unknown as Channel[]) {
      this.channels.set(p.name, p)
      p.deliver = (code, data) => this.receive(p.name, code, data)
    }
    this.sharedCaps = [...this.channels.values()].map((c) => ({
      name: c.name,
      version: (c as unknown as { version: number }).version,
    }))
    socket.once('close', () => {
      this.isClosed = true
      this.listener = undefined
      const reason = (peer as unknown as { _disconnectReason?: number })._disconnectReason
      for (const fn of this.closeListeners) fn(reason === undefined ? 'connection closed' : `reason ${reason}`)
    })
  }

  private receive(cap: string, code: number, data: Uint8Array): void {
    if (this.listener) this.listener(cap, code, data)
    else if (this.buffered.length < MAX_BUFFERED) this.buffered.push([cap, code, data])
  }

  send(cap: string, code: number, payload: Uint8Array): boolean {
    const channel = this.channels.get(cap)
    if (!channel || this.isClosed) return false
    channel.send(code, this.isCompressed ? snappy.compress(payload) : payload)
    return true
  }

  onMessage(fn: Listener): void {
    this.listener = fn
    const pending = this.buffered
    this.buffered = []
    for (const [cap, code, data] of pending) fn(cap, code, data)
  }

  onClose(fn: (reason: string) => void): void {
    this.closeListeners.push(fn)
  }

  disconnect(reason: DisconnectReason): void {
    if (this.isClosed) return
    this.peer.disconnect(reason)
    this.isClosed = true
  }
}

export class RlpxTransport implements Transport {
  readonly localId: string
  private server?: net.Server
  private listenPort = 0
  private inboundListener?: (s: Session) => void
  private readonly sockets = new Set<net.Socket>()

  private readonly opts: RlpxTransportOptions

  constructor(opts: RlpxTransportOptions) {
    this.opts = opts
    this.localId = bytesToHex(opts.publicKey).slice(2)
  }

  listen(host: string, port: number): Promise<number> {
    const server = net.createServer((socket) => this.accept(socket))
    this.server = server
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => {
        server.off('error', reject)
        server.on('error', (e) => log.warn('p2p listener error', { error: e.message }))
        this.listenPort = (server.address() as net.AddressInfo).port
        resolve(this.listenPort)
      })
    })
  }

  onInbound(fn: (s: Session) => void): void {
    this.inboundListener = fn
  }

  dial(target: DialTarget): Promise<Session> {
    const socket = new net.Socket()
    return this.handshake(socket, target.id, () => socket.connect(target.port, target.host))
  }

  private accept(socket: net.Socket): void {
    this.handshake(socket, null, () => {}).then(
      (session) => this.inboundListener?.(session),
      (e) => log.debug('inbound handshake failed', { from: socket.remoteAddress, error: (e as Error).message }),
    )
  }

  /** Runs RLPx and HELLO on `socket` (as the dialer when `remoteId` is known). */
  private handshake(socket: net.Socket, remoteId: string | null, start: () => void): Promise<Session> {
    this.sockets.add(socket)
    socket.once('close', () => this.sockets.delete(socket))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error('handshake timed out'))
        socket.destroy()
      }, this.opts.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS)
      socket.once('error', (e) => {
        clearTimeout(timer)
        reject(e)
      })
      socket.once('close', () => {
        clearTimeout(timer)
        reject(new Error('connection closed during the handshake'))
      })
      const begin = () => {
        const peer = this.newPeer(socket, remoteId)
        peer.events.once('connect', () => {
          clearTimeout(timer)
          resolve(new RlpxSession(peer, socket, remoteId === null))
        })
      }
      if (remoteId === null) begin()
      else {
        socket.once('connect', begin)
        start()
      }
    })
  }

  private newPeer(socket: net.Socket, remoteId: string | null): RlpxPeer {
    const peer = new RlpxPeer({
      socket,
      remoteId: (remoteId === null ? null : hexToBytes(remoteId)) as Uint8Array,
      privateKey: this.opts.privateKey,
      id: this.opts.publicKey,
      timeout: HANDSHAKE_TIMEOUT_MS,
      clientId: new TextEncoder().encode(this.opts.clientName),
      capabilities: this.opts.capabilities().map((c) => ({ ...c, constructor: channelClass(c.name) as never })),
      // The library reads only `customCrypto` from it; empty means its own keccak and secp256k1.
      common: { customCrypto: {} } as unknown as Common,
      port: this.listenPort,
    })
    peer.events.on('error', (e: Error) => log.debug('peer error', { error: e.message }))
    return peer
  }

  async close(): Promise<void> {
    const server = this.server
    this.server = undefined
    for (const s of this.sockets) s.destroy()
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
