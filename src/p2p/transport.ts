/**
 * What the peer manager needs from a wire: sessions with remote nodes, each after the RLPx handshake
 * and HELLO, carrying messages of named capabilities. `rlpxTransport.ts` implements it over TCP with
 * the devp2p library; `memoryTransport.ts` implements it in memory for tests.
 */

/** A subprotocol offered in HELLO: its name, version and how many message codes it uses. */
export interface Capability {
  name: string
  version: number
  length: number
}

/** Why a session ended, with devp2p's reason codes. */
export const DisconnectReason = {
  requested: 0,
  networkError: 1,
  protocolError: 2,
  uselessPeer: 3,
  tooManyPeers: 4,
  alreadyConnected: 5,
  incompatibleVersion: 6,
  clientQuitting: 8,
  sameIdentity: 10,
  timeout: 11,
  subprotocolError: 16,
} as const
export type DisconnectReason = (typeof DisconnectReason)[keyof typeof DisconnectReason]

/** One live connection with a remote node, after HELLO. */
export interface Session {
  /** The remote node's id: its 64-byte public key, as lowercase hex without 0x. */
  readonly remoteId: string
  /** True when the remote node dialed us. */
  readonly isInbound: boolean
  /** The remote's client name from HELLO. */
  readonly clientName: string
  /** The capabilities both sides share, one version per name (the highest). */
  readonly sharedCaps: { name: string; version: number }[]
  /** The remote's capabilities as announced in HELLO. */
  readonly remoteCaps: { name: string; version: number }[]
  /** The TCP port the remote says it listens on (0 when it does not). */
  readonly remoteListenPort: number
  readonly localAddress: string
  readonly remoteAddress: string
  /** Sends an RLP-encoded message of capability `cap`; false when the session is closed. */
  send(cap: string, code: number, payload: Uint8Array): boolean
  /** Messages of shared capabilities; those arriving before a listener is set are kept for it. */
  onMessage(fn: (cap: string, code: number, payload: Uint8Array) => void): void
  onClose(fn: (reason: string) => void): void
  disconnect(reason: DisconnectReason): void
}

/** Where to dial: a node id (hex, no 0x) at a TCP endpoint. */
export interface DialTarget {
  id: string
  host: string
  port: number
}

export interface Transport {
  /** Our node id (hex, no 0x). */
  readonly localId: string
  /** Starts accepting connections; resolves to the bound port. */
  listen(host: string, port: number): Promise<number>
  /** Connects to a node; resolves once HELLO is exchanged, rejects when the connection fails. */
  dial(target: DialTarget): Promise<Session>
  /** Sessions opened by remote nodes, after HELLO. */
  onInbound(fn: (session: Session) => void): void
  close(): Promise<void>
}
