import { manualClock } from '../primitives/clock.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { MemoryNetwork, type MemoryTransport } from './memoryTransport.ts'
import { PeerManager, type PeerManagerOptions, type SubProtocol } from './peerManager.ts'

const idOf = (n: number) => n.toString(16).padStart(128, '0')
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0))
}

function echoProtocol(received: string[]): SubProtocol {
  return {
    name: 'echo',
    version: 1,
    length: 2,
    attach: (peer) => ({
      onMessage: (code, payload) => {
        received.push(`${peer.id.slice(-1)}:${code}:${payload[0]}`)
        if (code === 0) peer.send(1, payload)
      },
    }),
  }
}

function node(
  net: MemoryNetwork,
  n: number,
  clock = manualClock(0),
  maxPeers = 5,
  extra: Pick<PeerManagerOptions, 'maxInbound' | 'isPermitted'> = {},
) {
  let manager: PeerManager | undefined
  const transport = net.transport(idOf(n), () => manager?.capabilities() ?? [])
  manager = new PeerManager(transport, { maxPeers, clock, backoffInitialMs: 1000, backoffMaxMs: 8000, ...extra })
  const received: string[] = []
  manager.register(echoProtocol(received))
  void transport.listen()
  return { manager, transport: transport as MemoryTransport, received, clock }
}

const enodeOf = (n: number, port = n) => ({ id: idOf(n), host: '127.0.0.1', port, discoveryPort: port })

describe('PeerManager', () => {
  it('connects a kept node and carries subprotocol messages both ways', async () => {
    const net = new MemoryNetwork()
    const a = node(net, 1)
    const b = node(net, 2)
    expect(b.manager.addPeer(enodeOf(1))).toBe(true)
    await settle()
    expect(a.manager.list().map((p) => p.id)).toEqual([idOf(2)])
    const peerOfA = b.manager.get(idOf(1))!
    expect(b.transport.sessions[0].send('echo', 0, Uint8Array.of(7))).toBe(true)
    await settle()
    expect(a.received).toEqual(['2:0:7'])
    expect(b.received).toEqual(['1:1:7'])
    expect(peerOfA.enode).toBe(`enode://${idOf(1)}@127.0.0.1:1`)
  })

  it('keeps one session per pair when both nodes dial each other at once', async () => {
    const net = new MemoryNetwork()
    const a = node(net, 1)
    const b = node(net, 2)
    a.manager.addPeer(enodeOf(2))
    b.manager.addPeer(enodeOf(1))
    await settle()
    const liveA = a.transport.sessions.filter((s) => !s.isClosed)
    const liveB = b.transport.sessions.filter((s) => !s.isClosed)
    expect(liveA.length).toBe(1)
    expect(liveB.length).toBe(1)
    // The survivor is the session dialed by the lower id (node 1), on both sides.
    expect(liveA[0].isInbound).toBe(false)
    expect(liveB[0].isInbound).toBe(true)
    expect(a.manager.get(idOf(2))?.session).toBe(liveA[0])
    expect(b.manager.get(idOf(1))?.session).toBe(liveB[0])
  })

  it('redials a kept node with growing backoff and reconnects when it returns', async () => {
    const net = new MemoryNetwork()
    const clock = manualClock(0)
    const a = node(net, 1, clock)
    a.manager.addPeer(enodeOf(2))
    await settle()
    expect(a.manager.list()).toEqual([])
    const dials = () => a.transport.sessions.length
    clock.advance(999)
    a.manager.tick()
    await settle()
    const b = node(net, 2)
    clock.advance(1)
    a.manager.tick() // 1 s after the first failure
    await settle()
    expect(dials()).toBe(1)
    expect(a.manager.list().map((p) => p.id)).toEqual([idOf(2)])
    // The remote closes the session: redialed after the backoff, not before.
    b.transport.sessions[0].disconnect(0)
    await settle()
    expect(a.manager.list()).toEqual([])
    a.manager.tick()
    await settle()
    expect(dials()).toBe(1)
    clock.advance(1000)
    a.manager.tick()
    await settle()
    expect(dials()).toBe(2)
    expect(a.manager.list().length).toBe(1)
  })

  it('refuses inbound sessions beyond --max-peers and itself', async () => {
    const net = new MemoryNetwork()
    const a = node(net, 1, manualClock(0), 1)
    const b = node(net, 2)
    const c = node(net, 3)
    b.manager.addPeer(enodeOf(1))
    await settle()
    c.manager.addPeer(enodeOf(1))
    await settle()
    expect(a.manager.list().map((p) => p.id)).toEqual([idOf(2)])
    expect(c.manager.list()).toEqual([])
    expect(a.manager.addPeer(enodeOf(1))).toBe(false)
  })

  it('refuses inbound sessions beyond the remote connections limit, unless it keeps the node', async () => {
    const net = new MemoryNetwork()
    const a = node(net, 1, manualClock(0), 5, { maxInbound: 1 })
    for (const n of [2, 3]) node(net, n).manager.addPeer(enodeOf(1))
    await settle()
    expect(a.manager.list().map((p) => p.id)).toEqual([idOf(2)])
    // A node A keeps (a static node, a bootnode) may dial in past the limit.
    a.manager.addPeer(enodeOf(4))
    node(net, 4).manager.addPeer(enodeOf(1))
    await settle()
    expect(a.manager.list().length).toBe(2)
  })

  it('neither dials nor keeps nodes the allowlist refuses, and drops them when it changes', async () => {
    const net = new MemoryNetwork()
    const allowed = new Set([idOf(2)])
    const a = node(net, 1, manualClock(0), 5, { isPermitted: (e) => allowed.has(e.id) && e.port > 0 })
    const b = node(net, 2)
    node(net, 3).manager.addPeer(enodeOf(1))
    a.manager.addPeer(enodeOf(3))
    b.manager.addPeer(enodeOf(1))
    await settle()
    expect(a.manager.list().map((p) => p.id)).toEqual([idOf(2)])
    allowed.delete(idOf(2))
    a.manager.enforcePermissions()
    await settle()
    expect(a.manager.list()).toEqual([])
  })

  it('removePeer disconnects and stops redialing', async () => {
    const net = new MemoryNetwork()
    const clock = manualClock(0)
    const a = node(net, 1, clock)
    node(net, 2)
    a.manager.addPeer(enodeOf(2))
    await settle()
    expect(a.manager.list().length).toBe(1)
    expect(a.manager.removePeer(idOf(2))).toBe(true)
    await settle()
    clock.advance(60_000)
    a.manager.tick()
    await settle()
    expect(a.manager.list()).toEqual([])
    expect(a.manager.removePeer(idOf(2))).toBe(false)
  })

  it('dials a discovered candidate once and forgets it after a failure', async () => {
    const net = new MemoryNetwork()
    const clock = manualClock(0)
    const a = node(net, 1, clock)
    a.manager.addCandidate(enodeOf(2))
    a.manager.addCandidate(enodeOf(1))
    await settle()
    node(net, 2)
    clock.advance(60_000)
    a.manager.tick()
    await settle()
    expect(a.manager.list()).toEqual([])
    a.manager.addCandidate(enodeOf(2))
    await settle()
    expect(a.manager.list().map((p) => p.id)).toEqual([idOf(2)])
  })
})
