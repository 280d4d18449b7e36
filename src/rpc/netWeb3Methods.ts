/** NET and WEB3 groups, and rpc_modules. */
import { keccak_256 } from '@noble/hashes/sha3.js'
import { p } from '../jsonrpc/codecs.ts'
import { defineMethod } from '../jsonrpc/defineMethod.ts'
import { besuError } from '../jsonrpc/errors.ts'
import { bytesToHex, toQuantity } from '../primitives/hex.ts'
import type { RpcContext } from './context.ts'

export const netVersion = defineMethod({
  name: 'net_version',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => ctx.settings.networkId.toString(),
})

/** Whether the P2P listener is up. */
export const netListening = defineMethod({
  name: 'net_listening',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => ctx.network !== undefined,
})

export const netPeerCount = defineMethod({
  name: 'net_peerCount',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => toQuantity(ctx.network?.peers().length ?? 0),
})

/** Our enode URL; Besu's "P2P disabled" error without P2P. */
export const netEnode = defineMethod({
  name: 'net_enode',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => {
    if (!ctx.network) throw besuError('p2pDisabled')
    return ctx.network.enode
  },
})

/**
 * Besu's net_services: the host and port (a string) of each service that listens: `jsonrpc`, `ws`,
 * `p2p` (the enode's address), `metrics`, `graphQL`; a service that is off is left out.
 */
export const netServices = defineMethod({
  name: 'net_services',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => {
    const { ports, hosts } = ctx.settings
    const services: Record<string, { host: string; port: string }> = {}
    const add = (name: string, host: string | undefined, port: number | undefined) => {
      if (host !== undefined && port !== undefined) services[name] = { host, port: String(port) }
    }
    add('jsonrpc', hosts?.http, ports.http)
    add('ws', hosts?.ws, ports.ws)
    if (ctx.network) {
      const enode = new URL(ctx.network.enode)
      add('p2p', enode.hostname, Number(enode.port))
    }
    add('metrics', hosts?.metrics, ports.metrics)
    add('graphQL', hosts?.graphql, ports.graphql)
    return services
  },
})

export const web3ClientVersion = defineMethod({
  name: 'web3_clientVersion',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => ctx.settings.clientVersion,
})

export const web3Sha3 = defineMethod({
  name: 'web3_sha3',
  besu: { kinds: ['data'], count: 1 },
  params: [p.data],
  handler: (_ctx: RpcContext, [data]) => bytesToHex(keccak_256(data)),
})

/** The groups enabled on the listener the request came on, with Besu's version "1.0". */
export const rpcModules = defineMethod({
  name: 'rpc_modules',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => Object.fromEntries(ctx.apis.map((a) => [a.toLowerCase(), '1.0'])),
})

export const netMethods = [netVersion, netListening, netPeerCount, netEnode, netServices]
export const web3Methods = [web3ClientVersion, web3Sha3]
export const rpcModulesMethods = [rpcModules]
