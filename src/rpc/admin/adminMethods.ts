/**
 * The ADMIN group: node info from the node key and the P2P listener, the connected peers in Besu's
 * shape, keeping peers connected or dropping them, and the log level. Without P2P, peers are empty
 * and peer changes are refused with Besu's "P2P disabled". Besu reference: AdminNodeInfo,
 * AdminPeers, AdminAddPeer, AdminRemovePeer, AdminChangeLogLevel.
 */
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError, InvalidParamsError } from '../../jsonrpc/errors.ts'
import { EnodeError } from '../../p2p/enode.ts'
import { NodeNotPermittedError, type P2pNetwork, type PeerSummary } from '../../p2p/network.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import { setLogLevel } from '../../primitives/logger.ts'
import type { RpcContext } from '../context.ts'
import { logCacheMethods } from './logCacheMethods.ts'

const P2P_PORT = 30303

export const nodeInfo = defineMethod({
  name: 'admin_nodeInfo',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => {
    const id = ctx.settings.nodeKey ? bytesToHex(ctx.settings.nodeKey.publicKey).slice(2) : '00'.repeat(64)
    const net = ctx.network
    const port = net?.port ?? P2P_PORT
    const discoveryPort = net?.discoveryPort ?? 0
    const ip = net?.host ?? '127.0.0.1'
    const head = ctx.chain.head
    return {
      enode: net?.enode ?? `enode://${id}@127.0.0.1:${P2P_PORT}?discport=0`,
      id,
      ip,
      listenAddr: `${ip}:${port}`,
      name: ctx.settings.clientVersion,
      ports: { discovery: discoveryPort, listener: port },
      protocols: {
        eth: {
          config: { chainId: Number(ctx.settings.chainId) },
          difficulty: Number(ctx.chain.getTotalDifficulty(head.hash()) ?? 0n),
          genesis: bytesToHex(ctx.chain.genesis.hash()),
          head: bytesToHex(head.hash()),
          network: Number(ctx.settings.networkId),
        },
      },
    }
  },
})

/** Besu's peer object. */
function formatPeer(peer: PeerSummary) {
  return {
    version: '0x5',
    name: peer.name,
    caps: peer.caps,
    network: { localAddress: peer.localAddress, remoteAddress: peer.remoteAddress, inbound: peer.isInbound },
    port: toQuantity(peer.listenPort),
    id: `0x${peer.id}`,
    protocols: peer.eth
      ? {
          eth: {
            difficulty: toQuantity(peer.eth.difficulty),
            head: bytesToHex(peer.eth.head),
            version: peer.eth.version,
          },
        }
      : {},
    enode: peer.enode,
  }
}

export const peers = defineMethod({
  name: 'admin_peers',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => ctx.network?.peers().map(formatPeer) ?? [],
})

/** Runs a change of the kept peers, with Besu's errors for a bad enode URL or our own node. */
function changePeers(ctx: RpcContext, url: string, change: (net: P2pNetwork, url: string) => boolean): boolean {
  const net = ctx.network
  if (!net) throw besuError('p2pDisabled')
  try {
    if (url.includes(net.nodeId)) throw besuError('cantConnectToLocalPeer')
    return change(net, url)
  } catch (e) {
    if (e instanceof NodeNotPermittedError) throw besuError('nonPermittedNode')
    if (!(e instanceof EnodeError)) throw e
    if (e.kind === 'invalidNodeId') throw besuError('enodeIdInvalid')
    throw new InvalidParamsError('Invalid params')
  }
}

export const addPeer = defineMethod({
  name: 'admin_addPeer',
  besu: { kinds: ['params'], count: 1, countKind: 'params' },
  params: [p.string],
  handler: (ctx: RpcContext, [url]) => changePeers(ctx, url, (net, u) => net.addPeer(u)),
})

export const removePeer = defineMethod({
  name: 'admin_removePeer',
  besu: { kinds: ['params'], count: 1, countKind: 'params' },
  params: [p.string],
  handler: (ctx: RpcContext, [url]) => changePeers(ctx, url, (net, u) => net.removePeer(u)),
})

export const changeLogLevel = defineMethod({
  name: 'admin_changeLogLevel',
  besu: { kinds: ['logLevel', 'logFilter'] },
  params: [p.string, p.array(p.string, 'logFilters').optional()],
  handler: (_ctx: RpcContext, [level]) => {
    if (!setLogLevel(level)) throw new InvalidParamsError('Invalid log level params (missing or incorrect)')
    return null
  },
})

export const adminMethods = [nodeInfo, peers, addPeer, removePeer, changeLogLevel, ...logCacheMethods]
