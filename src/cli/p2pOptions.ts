/** The peer-to-peer options of `basalt run`, with Besu's names, validated into the node's P2P config. */
import { join } from 'node:path'
import type { Command } from 'cac'
import { type NodeConfig, SYNC_MODES, type SyncMode } from '../node/config.ts'
import { intOpt, optBool, optString } from './argv.ts'
import { CliError } from './cliError.ts'

export function registerP2pOptions(cmd: Command): Command {
  return cmd
    .option('--p2p-enabled', 'Peer-to-peer networking (default: true with --genesis-file, false on the dev network)')
    .option('--p2p-host <host>', 'Address advertised in our enode', { default: '127.0.0.1' })
    .option('--p2p-interface <host>', 'Address the P2P listener binds (default: --p2p-host)')
    .option('--p2p-port <port>', 'P2P TCP port (0 picks a free one)', { default: '30303' })
    .option('--bootnodes <list>', 'Comma-separated enode URLs to connect to at start (and keep connected)')
    .option(
      '--static-nodes-file <file>',
      'JSON array of enode URLs to keep connected (default: DATA_PATH/static-nodes.json)',
    )
    .option('--max-peers <n>', 'Most peers connected at once', { default: '25' })
    .option('--discovery-enabled', 'discv4 node discovery on the P2P port (the bootnodes are dialed either way)')
    .option('--sync-mode <mode>', 'FULL (what Basalt does); SNAP and CHECKPOINT are taken as FULL, with a warning')
    .option('--nat-method <method>', 'NONE or AUTO: no NAT traversal (peers reach the node at --p2p-host)')
    .option(
      '--remote-connections-limit-enabled',
      'Limit the peers that dialed this node to --remote-connections-max-percentage of --max-peers (default: true)',
    )
    .option(
      '--remote-connections-max-percentage <percent>',
      'Share of --max-peers other nodes may dial in (default: 60)',
    )
    .option('--sync-min-peers <n>', "Peers a snap or checkpoint sync waits for; a full sync (Basalt's) starts from one")
    .option('--fast-sync-min-peers <n>', 'Older name of --sync-min-peers')
}

/** Besu's NAT methods Basalt runs: it has no UPnP or container address discovery, so AUTO finds none. */
const NAT_METHODS = ['NONE', 'AUTO']
const BESU_NAT_METHODS = ['UPNP', 'UPNPP2PONLY', 'DOCKER', 'KUBERNETES']

/** The `p2p` part of a NodeConfig; throws CliError naming the first bad option. */
export function parseP2pOptions(
  o: Record<string, unknown>,
  dataPath: string,
  hasGenesisFile: boolean,
): NodeConfig['p2p'] {
  const s = (key: string) => optString(o, key)
  const host = s('p2pHost') ?? '127.0.0.1'
  if (!host) throw new CliError(`Invalid value for option --p2p-host: '' (expected a non-empty value)`)
  const port = s('p2pPort') ?? '30303'
  if (!/^\d+$/.test(port) || Number(port) > 65535)
    throw new CliError(`Invalid value for option --p2p-port: '${port}' (expected an integer in 0..65535)`)
  const maxPeers = s('maxPeers') ?? '25'
  if (!/^\d+$/.test(maxPeers))
    throw new CliError(`Invalid value for option --max-peers: '${maxPeers}' (expected a non-negative integer)`)
  const bootnodes = (s('bootnodes') ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0)
  for (const b of bootnodes)
    if (!/^enode:\/\/[0-9a-fA-F]{128}@[^:]+:\d+/.test(b))
      throw new CliError(
        `Invalid value for option --bootnodes: '${b}' (expected enode://<128 hex digits>@<host>:<port>)`,
      )
  const syncMode = (s('syncMode') ?? 'FULL').toUpperCase().replace(/^X_/, '')
  if (!(SYNC_MODES as readonly string[]).includes(syncMode))
    throw new CliError(
      `Invalid value for option --sync-mode: '${s('syncMode')}' (expected one of ${SYNC_MODES.join(', ')})`,
    )
  const nat = (s('natMethod') ?? 'NONE').toUpperCase()
  if (!NAT_METHODS.includes(nat)) {
    const why = BESU_NAT_METHODS.includes(nat)
      ? 'Basalt has no NAT traversal: use NONE and set --p2p-host to the address peers reach'
      : `expected one of ${[...NAT_METHODS, ...BESU_NAT_METHODS].join(', ')}`
    throw new CliError(`Invalid value for option --nat-method: '${s('natMethod')}' (${why})`)
  }
  // Checked only: they concern snap and checkpoint syncs.
  if (s('syncMinPeers') !== undefined) intOpt('sync-min-peers', s('syncMinPeers'), 0)
  if (s('fastSyncMinPeers') !== undefined) intOpt('fast-sync-min-peers', s('fastSyncMinPeers'), 0)
  const share = intOpt('remote-connections-max-percentage', s('remoteConnectionsMaxPercentage') ?? '60', 0, 100)
  const isInboundLimited = optBool(o, 'remoteConnectionsLimitEnabled', 'remote-connections-limit-enabled', true)
  return {
    isEnabled: optBool(o, 'p2pEnabled', 'p2p-enabled', hasGenesisFile),
    syncMode: syncMode as SyncMode,
    // Besu: floor(max peers × share).
    maxInbound: isInboundLimited ? Math.floor((Number(maxPeers) * share) / 100) : undefined,
    host,
    interface: s('p2pInterface') ?? host,
    port: Number(port),
    bootnodes,
    staticNodesFile: s('staticNodesFile') ?? join(dataPath === ':memory:' ? '.' : dataPath, 'static-nodes.json'),
    maxPeers: Number(maxPeers),
    isDiscoveryEnabled: optBool(o, 'discoveryEnabled', 'discovery-enabled', true),
  }
}
