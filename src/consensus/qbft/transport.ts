import type { BftKind } from '../bftExtraData.ts'

/**
 * What a QBFT validator needs from the network: send a message to every other validator, and hear
 * theirs. A devp2p subprotocol (`istanbul/100`, Besu's) provides it between nodes: `broadcast` sends
 * one frame of message code `code` with payload `data` to each connected validator peer, and each
 * frame received from a peer goes to the handler with its code and payload. The sender's identity
 * comes from the message's own signature, not from the connection.
 */
export interface BftTransport {
  /**
   * Sends a message to every connected validator; never back to this node. `kind` is the protocol
   * of the message's height (a chain migrating to QBFT speaks both).
   */
  broadcast(code: number, data: Uint8Array, kind?: BftKind): void
  /**
   * Registers the handler for messages from peers, each with the protocol it came by where the
   * transport knows it; returns the function that removes it.
   */
  onMessage(handler: (code: number, data: Uint8Array, kind?: BftKind) => void): () => void
}

/** The transport of a network of one validator: there is nobody to send to or to hear from. */
export const soloTransport: BftTransport = {
  broadcast() {},
  onMessage: () => () => {},
}

/**
 * The devp2p capability QBFT messages travel on (Besu's `istanbul/100`): codes 0x12–0x15 of a
 * message space of 0x16 (codes below 0x12 are eth's, which the subprotocol reserves).
 */
export const QBFT_CAPABILITY = { name: 'istanbul', version: 100, messageSpace: 0x16 } as const
