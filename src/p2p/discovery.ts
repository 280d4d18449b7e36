/**
 * Node discovery v4 (UDP, on the TCP port's number) from `@ethereumjs/devp2p`'s DPT: we bootstrap
 * from the bootnodes, answer pings and neighbour queries, and offer each node found to the peer
 * manager as a one-time dial candidate. The library only adds nodes it pinged itself, so the nodes
 * we hold sessions with are pinged too — which is how a bootnode learns about the nodes that joined
 * it and can tell later ones about them. Our own id, which discovery hands back, is ignored.
 */
import { DPT } from '@ethereumjs/devp2p'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import type { Enode } from './enode.ts'

const log = createLogger('p2p')
/** Each known node is asked for neighbours once per this interval. */
const REFRESH_MS = 10_000

export interface DiscoveryOptions {
  privateKey: Uint8Array
  localId: string
  host: string
  interface: string
  port: number
  /** Called for every node found (never ourselves). */
  onFound(enode: Enode): void
}

export class Discovery {
  private readonly dpt: DPT

  private readonly opts: DiscoveryOptions

  constructor(opts: DiscoveryOptions) {
    this.opts = opts
    this.dpt = new DPT(opts.privateKey, {
      endpoint: { address: opts.host, udpPort: opts.port, tcpPort: opts.port },
      refreshInterval: REFRESH_MS,
    })
    this.dpt.events.on('error', (e: Error) => log.debug('discovery error', { error: e.message }))
    this.dpt.events.on('peer:added', (peer) => {
      const id = peer.id ? bytesToHex(peer.id).slice(2) : undefined
      if (!id || id === opts.localId || !peer.address || !peer.tcpPort) return
      opts.onFound({ id, host: peer.address, port: peer.tcpPort, discoveryPort: peer.udpPort ?? peer.tcpPort })
    })
  }

  /** Binds the UDP socket and pings the bootnodes (asking each for its neighbours). */
  start(bootnodes: Enode[]): void {
    this.dpt.bind(this.opts.port, this.opts.interface)
    for (const b of bootnodes) this.learn(b)
  }

  /** Pings a node we know of, adding it to the table when it answers. */
  learn(e: Enode): void {
    if (e.id === this.opts.localId || e.discoveryPort === 0) return
    void this.dpt.bootstrap({ id: hexToBytes(e.id), address: e.host, udpPort: e.discoveryPort, tcpPort: e.port })
  }

  stop(): void {
    this.dpt.destroy()
  }
}
