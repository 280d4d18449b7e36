import { secp256k1 } from '@noble/curves/secp256k1.js'
import { addressOf } from '../../consensus/bftHashing.ts'
import { ibft2Codec } from '../../consensus/ibft2/ibftMessages.ts'
import { encodeMessage, PREPARE, signPrepare } from '../../consensus/qbft/messages.ts'
import { manualClock } from '../../primitives/clock.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { describe, expect, it, sleep } from '../../runtime/testing.ts'
import { MemoryNetwork } from '../memoryTransport.ts'
import { type PeerHandle, PeerManager, type SubProtocolHandler } from '../peerManager.ts'
import type { DisconnectReason } from '../transport.ts'
import { BftProtocol, nodeIdAddress } from './bftProtocol.ts'

const keys = [1, 2, 3, 4].map((n) => new Uint8Array(32).fill(n))
const nodeId = (key: Uint8Array) => bytesToHex(secp256k1.getPublicKey(key, false).subarray(1)).slice(2)
/** Validators: keys 0..2; key 3 is a connected non-validator. */
const validators = keys.slice(0, 3).map(addressOf)

interface FakePeer {
  handle: PeerHandle
  sent: { code: number; data: Uint8Array }[]
  handler: SubProtocolHandler
}

function setUp(kind: 'qbft' | 'ibft2' = 'qbft', height = 5n, self = keys[0]) {
  const chain = { height }
  const protocol = new BftProtocol({
    kind,
    validators: () => validators,
    height: () => chain.height,
    address: addressOf(self),
  })
  const received: { code: number; data: Uint8Array }[] = []
  protocol.onMessage((code, data) => received.push({ code, data }))
  // This node is key 0; its peers are keys 1..3.
  const peers: FakePeer[] = keys.slice(1).map((k) => {
    const sent: FakePeer['sent'] = []
    const handle: PeerHandle = {
      id: nodeId(k),
      session: undefined as never,
      send: (code, data) => sent.push({ code, data }) > 0,
      disconnect: (_r: DisconnectReason) => {},
    }
    return { handle, sent, handler: protocol.attach(handle) }
  })
  return { protocol, received, peers, chain }
}

const prepare = (key: Uint8Array, height = 5n) =>
  encodeMessage({ code: PREPARE, signed: signPrepare({ height, round: 0, digest: new Uint8Array(32).fill(9) }, key) })

describe('BFT subprotocol', () => {
  it("offers Besu's capabilities: istanbul/100 for QBFT, IBF/1 for IBFT 2.0", () => {
    const q = setUp('qbft').protocol
    const i = setUp('ibft2').protocol
    expect([q.name, q.version, q.length]).toEqual(['istanbul', 100, 0x16])
    expect([i.name, i.version, i.length]).toEqual(['IBF', 1, 4])
  })

  it('names a peer by the address of its node key', () => {
    expect(bytesToHex(nodeIdAddress(nodeId(keys[2])))).toBe(bytesToHex(addressOf(keys[2])))
  })

  it('broadcasts to the connected validators only, never to a non-validator', () => {
    const { protocol, peers } = setUp()
    const msg = prepare(keys[0])
    protocol.broadcast(PREPARE, msg)
    expect(peers.map((p) => p.sent.length)).toEqual([1, 1, 0])
    expect(peers[0].sent[0]).toEqual({ code: PREPARE, data: msg })
    expect(protocol.validatorPeers().map((p) => p.id)).toEqual([nodeId(keys[1]), nodeId(keys[2])])
  })

  it('sends IBFT 2.0 messages with codes 0..3 and hands them on with the core codes', () => {
    const { protocol, peers, received } = setUp('ibft2')
    const ibftPrepare = (key: Uint8Array) =>
      ibft2Codec.encode({
        code: PREPARE,
        signed: ibft2Codec.signPrepare({ height: 5n, round: 0, digest: new Uint8Array(32).fill(9) }, key),
      })
    protocol.broadcast(PREPARE, ibftPrepare(keys[0]))
    expect(peers[0].sent[0].code).toBe(1)
    peers[0].handler.onMessage(1, ibftPrepare(keys[1]))
    expect(() => peers[0].handler.onMessage(1, prepare(keys[2]))).toThrow('height is 1 bytes, expected 8')
    expect(received.map((r) => r.code)).toEqual([PREPARE])
  })

  it('hands a message on once, and gossips it to validators other than its sender and author', () => {
    const { peers, received } = setUp()
    const msg = prepare(keys[2])
    // Peer 1 (key 1) relays a message authored by key 2: key 2 and key 1 are excluded, key 3 is no validator.
    peers[0].handler.onMessage(PREPARE, msg)
    peers[1].handler.onMessage(PREPARE, msg)
    expect(received).toHaveLength(1)
    expect(peers.map((p) => p.sent.length)).toEqual([0, 0, 0])
    // A message authored by key 1 arriving from key 3 goes on to key 2 only.
    peers[2].handler.onMessage(PREPARE, prepare(keys[1]))
    expect(received).toHaveLength(2)
    expect(peers.map((p) => p.sent.length)).toEqual([0, 1, 0])
  })

  it('does not echo our own broadcast back to the validator', () => {
    const { protocol, peers, received } = setUp()
    const msg = prepare(keys[0])
    protocol.broadcast(PREPARE, msg)
    peers[0].handler.onMessage(PREPARE, msg)
    expect(received).toHaveLength(0)
  })

  it('drops a message for a height below ours; hands on but never gossips one from a non-validator', () => {
    const { peers, received } = setUp('qbft', 5n)
    peers[0].handler.onMessage(PREPARE, prepare(keys[1], 4n))
    expect(received).toHaveLength(0)
    peers[2].handler.onMessage(PREPARE, prepare(keys[3]))
    expect(received).toHaveLength(1)
    expect(peers.map((p) => p.sent.length)).toEqual([0, 0, 0])
  })

  it('hands on a message for a later height but holds it from gossip until that height starts, as Besu', () => {
    const { protocol, peers, received, chain } = setUp('qbft', 5n)
    // Authored by key 2, relayed by key 1: for height 6, while this node decides height 5.
    const ahead = prepare(keys[2], 6n)
    peers[0].handler.onMessage(PREPARE, ahead)
    expect(received).toHaveLength(1)
    expect(peers.map((p) => p.sent.length)).toEqual([0, 0, 0])
    protocol.heightStarted()
    expect(peers.map((p) => p.sent.length)).toEqual([0, 0, 0])
    // Height 6 starts: it goes on to the validators other than its sender and author (none here);
    // one authored by key 1 for height 7, held meanwhile, goes on to key 2 once height 7 starts.
    peers[2].handler.onMessage(PREPARE, prepare(keys[1], 7n))
    chain.height = 6n
    protocol.heightStarted()
    expect(peers.map((p) => p.sent.length)).toEqual([0, 0, 0])
    chain.height = 7n
    protocol.heightStarted()
    expect(peers.map((p) => p.sent.length)).toEqual([0, 1, 0])
    expect(peers[1].sent[0].data).toEqual(prepare(keys[1], 7n))
    protocol.heightStarted()
    expect(peers[1].sent).toHaveLength(1)
  })

  it('drops held messages of a height the chain went past, and sends nothing held back when another frame arrives', () => {
    const { peers, chain } = setUp('qbft', 5n)
    peers[2].handler.onMessage(PREPARE, prepare(keys[1], 6n))
    chain.height = 7n
    // The next frame received releases what is due (nothing: height 6 was passed by sync).
    peers[2].handler.onMessage(PREPARE, prepare(keys[1], 7n))
    expect(peers[1].sent.map((f) => f.data)).toEqual([prepare(keys[1], 7n)])
  })

  it('gossips nothing when this node is not a validator, though it hands messages on', () => {
    const { peers, received } = setUp('qbft', 5n, keys[3])
    peers[2].handler.onMessage(PREPARE, prepare(keys[1]))
    expect(received).toHaveLength(1)
    expect(peers.map((p) => p.sent.length)).toEqual([0, 0, 0])
  })

  it('throws (so the peer is disconnected) on an unknown code or a message that is not signed', () => {
    const { peers } = setUp()
    expect(() => peers[0].handler.onMessage(0x01, prepare(keys[1]))).toThrow('unknown message code')
    const broken = prepare(keys[1])
    broken[broken.length - 1] = 5 // the signature's recovery id
    expect(() => peers[0].handler.onMessage(PREPARE, broken)).toThrow()
  })

  it('forgets a peer once its session closes', () => {
    const { protocol, peers } = setUp()
    peers[0].handler.onClose?.()
    protocol.broadcast(PREPARE, prepare(keys[0]))
    expect(peers.map((p) => p.sent.length)).toEqual([0, 1, 0])
  })
})

describe('BFT subprotocol over peer sessions', () => {
  it('carries a message to a validator not connected to its author, by gossip through another', async () => {
    const net = new MemoryNetwork()
    const nodes = keys.slice(0, 3).map((key) => {
      const protocol = new BftProtocol({
        kind: 'qbft',
        validators: () => validators,
        height: () => 5n,
        address: addressOf(key),
      })
      const received: Uint8Array[] = []
      protocol.onMessage((_code, data) => received.push(data))
      let manager: PeerManager | undefined
      const transport = net.transport(nodeId(key), () => manager?.capabilities() ?? [])
      manager = new PeerManager(transport, { maxPeers: 5, clock: manualClock(0) })
      manager.register(protocol)
      void transport.listen()
      return { protocol, received, manager }
    })
    const enode = (i: number) => ({ id: nodeId(keys[i]), host: '127.0.0.1', port: i + 1, discoveryPort: i + 1 })
    // A line: 0 — 1 — 2 (the memory network gives the i-th transport port i + 1).
    nodes[0].manager.addPeer(enode(1))
    nodes[2].manager.addPeer(enode(1))
    for (let i = 0; i < 200 && nodes[1].protocol.validatorPeers().length < 2; i++) await sleep(5)
    expect(nodes[0].protocol.validatorPeers().map((p) => p.id)).toEqual([nodeId(keys[1])])

    const msg = prepare(keys[0])
    nodes[0].protocol.broadcast(PREPARE, msg)
    for (let i = 0; i < 200 && nodes[2].received.length === 0; i++) await sleep(5)
    expect(nodes[1].received).toEqual([msg])
    expect(nodes[2].received).toEqual([msg])
    // Node 2 gossips it back to node 1 only if it had not seen it: node 1 hands it on once.
    await sleep(20)
    expect(nodes[1].received).toHaveLength(1)
    expect(nodes[0].received).toHaveLength(0)
    for (const n of nodes) await n.manager.stop()
  })
})
