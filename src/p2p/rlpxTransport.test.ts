import { afterEach, describe, expect, it } from 'bun:test'
import { generateKeyPair } from '../primitives/nodeKey.ts'
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

  it('rejects a dial to a node that holds another key', async () => {
    const a = transport('a')
    const b = transport('b')
    const port = await a.listen('127.0.0.1', 0)
    await expect(b.dial({ id: b.localId, host: '127.0.0.1', port })).rejects.toThrow()
  })
})
