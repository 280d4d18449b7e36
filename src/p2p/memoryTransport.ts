/**
 * A Transport in memory, for tests of the peer manager and the subprotocols: nodes on one
 * `MemoryNetwork` dial each other by id, sessions deliver messages asynchronously (as a socket
 * would) and closing one side closes the other.
 */
import type { Capability, DialTarget, DisconnectReason, Session, Transport } from './transport.ts'

type Listener = (cap: string, code: number, payload: Uint8Array) => void

class MemorySession implements Session {
  other!: MemorySession
  private listener?: Listener
  private buffered: [string, number, Uint8Array][] = []
  private closeListeners: ((reason: string) => void)[] = []
  isClosed = false
  /** Every message sent, for assertions. */
  readonly sent: { cap: string; code: number; payload: Uint8Array }[] = []

  readonly remoteId: string
  readonly isInbound: boolean
  readonly sharedCaps: { name: string; version: number }[]
  readonly remoteListenPort: number

  constructor(
    remoteId: string,
    isInbound: boolean,
    sharedCaps: { name: string; version: number }[],
    remoteListenPort: number,
  ) {
    this.remoteId = remoteId
    this.isInbound = isInbound
    this.sharedCaps = sharedCaps
    this.remoteListenPort = remoteListenPort
  }

  get clientName(): string {
    return 'memory'
  }
  get remoteCaps() {
    return this.sharedCaps
  }
  get localAddress(): string {
    return `127.0.0.1:${this.other.remoteListenPort}`
  }
  get remoteAddress(): string {
    return `127.0.0.1:${this.remoteListenPort}`
  }

  send(cap: string, code: number, payload: Uint8Array): boolean {
    if (this.isClosed || !this.sharedCaps.some((c) => c.name === cap)) return false
    this.sent.push({ cap, code, payload })
    queueMicrotask(() => this.other.receive(cap, code, payload))
    return true
  }

  private receive(cap: string, code: number, payload: Uint8Array): void {
    if (this.isClosed) return
    if (this.listener) this.listener(cap, code, payload)
    else this.buffered.push([cap, code, payload])
  }

  onMessage(fn: Listener): void {
    this.listener = fn
    for (const [cap, code, payload] of this.buffered.splice(0)) fn(cap, code, payload)
  }

  onClose(fn: (reason: string) => void): void {
    this.closeListeners.push(fn)
  }

  disconnect(reason: DisconnectReason): void {
    this.close(`reason ${reason}`)
    queueMicrotask(() => this.other.close(`reason ${reason}`))
  }

  private close(reason: string): void {
    if (this.isClosed) return
    this.isClosed = true
    for (const fn of this.closeListeners) fn(reason)
  }
}

/** The set of nodes that can reach each other. */
export class MemoryNetwork {
  readonly nodes = new Map<string, MemoryTransport>()

  transport(id: string, capabilities: () => Capability[], port = this.nodes.size + 1): MemoryTransport {
    const t = new MemoryTransport(this, id, capabilities, port)
    this.nodes.set(id, t)
    return t
  }
}

export class MemoryTransport implements Transport {
  inbound?: (s: Session) => void
  isListening = false
  /** Every session opened by or to this node. */
  readonly sessions: MemorySession[] = []

  private readonly network: MemoryNetwork
  readonly localId: string
  readonly capabilities: () => Capability[]
  readonly port: number

  constructor(network: MemoryNetwork, localId: string, capabilities: () => Capability[], port: number) {
    this.network = network
    this.localId = localId
    this.capabilities = capabilities
    this.port = port
  }

  async listen(): Promise<number> {
    this.isListening = true
    return this.port
  }

  onInbound(fn: (s: Session) => void): void {
    this.inbound = fn
  }

  async dial(target: DialTarget): Promise<Session> {
    await Promise.resolve()
    const remote = this.network.nodes.get(target.id)
    if (!remote?.isListening || remote.port !== target.port) throw new Error('connection refused')
    const shared = sharedCaps(this.capabilities(), remote.capabilities())
    const mine = new MemorySession(target.id, false, shared, remote.port)
    const theirs = new MemorySession(this.localId, true, shared, this.port)
    mine.other = theirs
    theirs.other = mine
    this.sessions.push(mine)
    remote.sessions.push(theirs)
    queueMicrotask(() => remote.inbound?.(theirs))
    return mine
  }

  async close(): Promise<void> {
    this.isListening = false
    for (const s of this.sessions) if (!s.isClosed) s.disconnect(8)
  }
}

function sharedCaps(a: Capability[], b: Capability[]): { name: string; version: number }[] {
  const out = new Map<string, number>()
  for (const x of a)
    for (const y of b)
      if (x.name === y.name && x.version === y.version && (out.get(x.name) ?? -1) < x.version)
        out.set(x.name, x.version)
  return [...out].map(([name, version]) => ({ name, version }))
}
