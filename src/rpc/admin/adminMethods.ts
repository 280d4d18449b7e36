/**
 * The ADMIN group as far as a node without peer-to-peer networking can answer it truthfully:
 * node info from the node key, no peers, peer changes refused with Besu's "P2P disabled", and the
 * log level. Besu reference: AdminNodeInfo, AdminPeers, AdminAddPeer, AdminChangeLogLevel.
 */
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError, InvalidParamsError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { setLogLevel } from '../../primitives/logger.ts'
import type { RpcContext } from '../context.ts'
import { logCacheMethods } from './logCacheMethods.ts'

const P2P_PORT = 30303

export const nodeInfo = defineMethod({
  name: 'admin_nodeInfo',
  params: [],
  handler: (ctx: RpcContext) => {
    const id = ctx.settings.nodeKey ? bytesToHex(ctx.settings.nodeKey.publicKey).slice(2) : '00'.repeat(64)
    const head = ctx.chain.head
    return {
      enode: `enode://${id}@127.0.0.1:${P2P_PORT}?discport=0`,
      id,
      ip: '127.0.0.1',
      listenAddr: `127.0.0.1:${P2P_PORT}`,
      name: ctx.settings.clientVersion,
      ports: { discovery: 0, listener: P2P_PORT },
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

export const peers = defineMethod({
  name: 'admin_peers',
  params: [],
  handler: () => [],
})

const refusePeerChange = (name: string) =>
  defineMethod({
    name,
    params: [p.string],
    handler: () => {
      throw besuError('p2pDisabled')
    },
  })

export const changeLogLevel = defineMethod({
  name: 'admin_changeLogLevel',
  params: [p.string, p.array(p.string, 'logFilters').optional()],
  handler: (_ctx: RpcContext, [level]) => {
    if (!setLogLevel(level)) throw new InvalidParamsError('Invalid log level params (missing or incorrect)')
    return null
  },
})

export const adminMethods = [
  nodeInfo,
  peers,
  refusePeerChange('admin_addPeer'),
  refusePeerChange('admin_removePeer'),
  changeLogLevel,
  ...logCacheMethods,
]
