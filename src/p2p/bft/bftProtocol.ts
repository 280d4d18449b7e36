/**
 * The BFT consensus subprotocol, as Besu names it: `istanbul/100` for QBFT (message codes 0x12–0x15
 * in a space of 0x16) and `IBF/1` for IBFT 2.0 (codes 0–3, so the core's codes shifted down by
 * 0x12). It is the validator's `BftTransport` between nodes:
 * - `broadcast` sends a message to every connected peer whose node key is a current validator's
 *   (the node key is the validator key, so a peer's address is the keccak of its node id);
 * - a received message is checked for its signer (recovered from the message's own signature, not
 *   taken from the connection) and its height, dropped when seen before or behind ours, and handed
 *   to the validator;
 * - gossip, as Besu's controller: a message of the height being decided goes on to the other
 *   connected validators — never back to the peer it came from nor to its author — when its author
 *   and this node are validators. One for a later height is not passed on yet: it is held (bounded)
 *   and goes on once that height starts (`heightStarted`), if still from a validator then.
 * Every node of a BFT chain offers the capability; a non-validator is simply never sent anything.
 */
import { keccak_256 } from '@noble/hashes/sha3.js'
import type { BftKind } from '../../consensus/bftExtraData.ts'
import { codecFor } from '../../consensus/qbft/messageCodec.ts'
import { PROPOSAL, ROUND_CHANGE } from '../../consensus/qbft/messages.ts'
import { type BftTransport, QBFT_CAPABILITY } from '../../consensus/qbft/transport.ts'
import { bytesToHex, concatBytes, equalBytes, hexToBytes } from '../../primitives/hex.ts'
import { createLogger } from '../../primitives/logger.ts'
import { BoundedSet } from '../eth/ethPeer.ts'
import type { PeerHandle, SubProtocol, SubProtocolHandler } from '../peerManager.ts'

const log = createLogger('bft')
/** Messages remembered for duplicate suppression. */
const SEEN_MESSAGES = 10_000
/** Frames of later heights held for gossip, and how far ahead a height may be (the validator's bounds). */
const MAX_HELD = 1000
const MAX_HEIGHT_LEAD = 10n

interface WireShape {
  name: string
  version: number
  length: number
  /** Wire code = core code - offset. */
  codeOffset: number
}

/** Besu's capability for each BFT flavour. */
export const BFT_WIRE: Record<BftKind, WireShape> = {
  qbft: {
    name: QBFT_CAPABILITY.name,
    version: QBFT_CAPABILITY.version,
    length: QBFT_CAPABILITY.messageSpace,
    codeOffset: 0,
  },
  ibft2: { name: 'IBF', version: 1, length: 4, codeOffset: PROPOSAL },
}

export interface BftProtocolDeps {
  kind: BftKind
  /** The validators of the height being decided (the head's successor). */
  validators(): Uint8Array[]
  /** The height being decided: messages below it are neither handed on nor gossiped. */
  height(): bigint
  /** This node's address (its node key's): a node outside the validators gossips nothing. */
  address: Uint8Array
}

interface HeldFrame {
  code: number
  data: Uint8Array
  height: bigint
  author: Uint8Array
  /** The peer it came from, which is not sent it again. */
  from: Uint8Array
}

interface BftPeer {
  handle: PeerHandle
  /** The peer's address: the last 20 bytes of keccak(node id). */
  address: Uint8Array
}

/** The address a node id (64-byte public key, hex without 0x) signs with. */
export function nodeIdAddress(id: string): Uint8Array {
  return keccak_256(hexToBytes(`0x${id}`)).subarray(12)
}

export class BftProtocol implements SubProtocol, BftTransport {
  readonly name: string
  readonly version: number
  readonly length: number
  private readonly codeOffset: number
  private readonly peers = new Map<string, BftPeer>()
  private readonly seen = new BoundedSet(SEEN_MESSAGES)
  private readonly handlers = new Set<(code: number, data: Uint8Array, kind: BftKind) => void>()
  private held: HeldFrame[] = []

  private readonly deps: BftProtocolDeps

  constructor(deps: BftProtocolDeps) {
    this.deps = deps
    const shape = BFT_WIRE[deps.kind]
    this.name = shape.name
    this.version = shape.version
    this.length = shape.length
    this.codeOffset = shape.codeOffset
  }

  /** The connected peers whose node key is a validator's. */
  validatorPeers(): PeerHandle[] {
    return this.connectedValidators().map((p) => p.handle)
  }

  private connectedValidators(): BftPeer[] {
    const validators = this.deps.validators()
    return [...this.peers.values()].filter((p) => validators.some((v) => equalBytes(v, p.address)))
  }

  attach(handle: PeerHandle): SubProtocolHandler {
    const peer: BftPeer = { handle, address: nodeIdAddress(handle.id) }
    this.peers.set(handle.id, peer)
    return {
      onMessage: (code, data) => this.receive(peer, code + this.codeOffset, data),
      onClose: () => {
        if (this.peers.get(handle.id) === peer) this.peers.delete(handle.id)
      },
    }
  }

  broadcast(code: number, data: Uint8Array): void {
    this.heightStarted()
    this.seen.add(messageKey(code, data))
    this.send(code, data, [])
  }

  onMessage(handler: (code: number, data: Uint8Array, kind: BftKind) => void): () => void {
    this.handlers.add(handler)
    return () => this.handlers.delete(handler)
  }

  private send(code: number, data: Uint8Array, exclude: Uint8Array[]): void {
    for (const p of this.connectedValidators()) {
      if (exclude.some((a) => equalBytes(a, p.address))) continue
      p.handle.send(code - this.codeOffset, data)
    }
  }

  /**
   * The chain reached a new height: held frames of that height go on as if just received, older ones
   * are dropped. Also run on every frame sent or received, so a missed call only delays them.
   */
  heightStarted(): void {
    if (this.held.length === 0) return
    const current = this.deps.height()
    const due = this.held.filter((f) => f.height === current)
    this.held = this.held.filter((f) => f.height > current)
    for (const f of due) this.gossip(f.code, f.data, f.author, f.from)
  }

  /** A frame from `peer`; a message that does not decode or is not signed disconnects the peer. */
  private receive(peer: BftPeer, code: number, data: Uint8Array): void {
    if (code < PROPOSAL || code > ROUND_CHANGE) throw new Error(`unknown message code ${code - this.codeOffset}`)
    const key = messageKey(code, data)
    if (this.seen.has(key)) return
    this.seen.add(key)
    const { author, height } = codecFor(this.deps.kind).origin(code, data)
    this.heightStarted()
    const current = this.deps.height()
    if (height < current) return
    for (const h of this.handlers) h(code, data, this.deps.kind)
    if (height === current) this.gossip(code, data, author, peer.address)
    else if (height <= current + MAX_HEIGHT_LEAD && this.held.length < MAX_HELD)
      this.held.push({ code, data, height, author, from: peer.address })
  }

  /** Passes a message of the current height on, as Besu: only between validators. */
  private gossip(code: number, data: Uint8Array, author: Uint8Array, from: Uint8Array): void {
    const validators = this.deps.validators()
    if (!validators.some((v) => equalBytes(v, this.deps.address))) return
    if (validators.some((v) => equalBytes(v, author))) this.send(code, data, [from, author])
    else log.debug('message from a non-validator not gossiped', { author: bytesToHex(author), code })
  }
}

function messageKey(code: number, data: Uint8Array): string {
  return bytesToHex(keccak_256(concatBytes(Uint8Array.of(code), data)))
}
