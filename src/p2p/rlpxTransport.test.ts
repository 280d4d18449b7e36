import { manualClock } from '../primitives/clock.ts'
import { generateKeyPair } from '../primitives/nodeKey.ts'
import { afterEach, describe, expect, it, sleep } from '../runtime/testing.ts'
import { PeerManager } from './peerManager.ts'
import { RlpxTransport } from './rlpxTransport.ts'
import type { Session } from './transport.ts'

const caps = () => [{ name: 'echo', version: 1, length: 2 }]
const open: RlpxTransport[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()))
})

function transport(name: string) {
  const key = generateKeyPair()
  const t = new RlpxTransport({
    privateKey: key.privateKey,
    publicKey: key.publicKey,
    clientName: name,
    capabilities: caps,
    handshakeTimeoutMs: 1500,
  })
  open.push(t)
  return t
}

describe('RlpxTransport', () => {
  it('completes the RLPx handshake and HELLO on loopback and carries a subprotocol both ways', async () => {
    const a = transport('basalt-a')
    const b = transport('basalt-b')
    const port = await a.listen('127.0.0.1', 0)
    const inbound = new Promise<Session>((resolve) => a.onInbound(resolve))
    const out = await b.dial({ id: a.localId, host: '127.0.0.1', port })
    const inc = await inbound
    expect(out.remoteId).toBe(a.localId)
    expect(inc.remoteId).toBe(b.localId)
    expect(inc.clientName).toBe('basalt-b')
    expect(out.sharedCaps).toEqual([{ name: 'echo', version: 1 }])
    const got = new Promise<[number, number[]]>((resolve) => inc.onMessage((_c, code, p) => resolve([code, [...p]])))
    expect(out.send('echo', 1, Uint8Array.of(0xc2, 0x01, 0x02))).toBe(true)
    expect(await got).toEqual([1, [0xc2, 0x01, 0x02]])
    const closed = new Promise<string>((resolve) => inc.onClose(resolve))
    out.disconnect(0)
    expect(typeof (await closed)).toBe('string')
    expect(out.send('echo', 1, Uint8Array.of(0x80))).toBe(false)
  })

  it('keeps one live session when two nodes dial each other at the same moment', async () => {
    const managers = [transport('a'), transport('b')].map((t) => {
      const m = new PeerManager(t, { maxPeers: 5, clock: manualClock(0) })
      m.register({ name: 'echo', version: 1, length: 2, attach: () => ({ onMessage: () => {} }) })
      return { t, m }
    })
    const ports = await Promise.all(managers.map(({ t }) => t.listen('127.0.0.1', 0)))
    const [a, b] = managers
    a.m.addPeer({ id: b.t.localId, host: '127.0.0.1', port: ports[1], discoveryPort: 0 })
    b.m.addPeer({ id: a.t.localId, host: '127.0.0.1', port: ports[0], discoveryPort: 0 })
    const deadline = Date.now() + 5000
    while (Date.now() < deadline && (a.m.list().length !== 1 || b.m.list().length !== 1)) await sleep(20)
    // Both sides settle on the same session: the one the lower node id dialed.
    await sleep(300)
    const [sa] = a.m.list().map((p) => p.session)
    const [sb] = b.m.list().map((p) => p.session)
    expect(sa.localAddress).toBe(sb.remoteAddress)
    expect(sa.isInbound).toBe(a.t.localId > b.t.localId)
    expect(sb.isInbound).toBe(!sa.isInbound)
    for (const { m } of managers) await m.stop()
  })

  it('keeps two capabilities apart on one session (eth beside a custom subprotocol)', async () => {
    const twoCaps = () => [
      { name: 'istanbul', version: 100, length: 22 },
      { name: 'eth', version: 68, length: 17 },
    ]
    const make = () => {
      const key = generateKeyPair()
      const t = new RlpxTransport({ ...key, clientName: 'x', capabilities: twoCaps, handshakeTimeoutMs: 1500 })
      open.push(t)
      return t
    }
    const a = make()
    const b = make()
    const port = await a.listen('127.0.0.1', 0)
    const inbound = new Promise<Session>((resolve) => a.onInbound(resolve))
    const out = await b.dial({ id: a.localId, host: '127.0.0.1', port })
    const inc = await inbound
    const got: string[] = []
    inc.onMessage((cap, code, p) => got.push(`${cap}:${code}:${p[0]}`))
    out.send('istanbul', 0x12, Uint8Array.of(0x01))
    out.send('eth', 16, Uint8Array.of(0x02))
    out.send('istanbul', 0, Uint8Array.of(0x03))
    const deadline = Date.now() + 3000
    while (got.length < 3 && Date.now() < deadline) await sleep(10)
    expect(got).toEqual(['istanbul:18:1', 'eth:16:2', 'istanbul:0:3'])
  })

  it('rejects a dial to a node that holds another key', async () => {
    const a = transport('a')
    const b = transport('b')
    const port = await a.listen('127.0.0.1', 0)
    await expect(b.dial({ id: b.localId, host: '127.0.0.1', port })).rejects.toThrow()
  })
})
