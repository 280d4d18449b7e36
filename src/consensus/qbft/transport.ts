/**
 * What a QBFT validator needs from the network: send a message to every other validator, and hear
 * theirs. A devp2p subprotocol (`istanbul/100`, Besu's) provides it between nodes: `broadcast` sends
 * one frame of message code `code` with payload `data` to each connected validator peer, and each
 * frame received from a peer goes to the handler with its code and payload. The sender's identity
 * comes from the message's own signature, not from the connection.
 */
export interface BftTransport {
  /** Sends a message to every connected validator; never back to this node. */
  broadcast(code: number, data: Uint8Array): void
  /** Registers the handler for messages from peers; returns the function that removes it. */
  onMessage(handler: (code: number, data: Uint8Array) => void): () => void
}

/** The transport of a network of one validator: there is nobody to send to or to hear from. */
export const soloTransport: BftTransport = {
  broadcast() {},
  onMessage: () => () => {},
}
