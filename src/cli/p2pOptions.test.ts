/** `basalt run`'s peer-to-peer and metrics options, parsed as the executable parses them. */

import cac from 'cac'
import { describe, expect, it } from '../runtime/testing.ts'
import { protectOptionValues } from './argv.ts'
import { parseRunOptions, registerRunCommand } from './runCommand.ts'

function config(args: string[]) {
  const cli = cac('basalt')
  registerRunCommand(cli)
  const { options } = cli.parse(['bun', 'basalt', ...protectOptionValues(cli, ['run', ...args])], { run: false })
  return parseRunOptions(options)
}

const ENODE = `enode://${'ab'.repeat(64)}@127.0.0.1:30303`

describe('--p2p-* and friends', () => {
  it('is off on the dev network and on with a genesis file, with Besu defaults', () => {
    expect(config([]).p2p.isEnabled).toBe(false)
    expect(config(['--genesis-file', 'g.json', '--data-path', 'd']).p2p).toEqual({
      isEnabled: true,
      host: '127.0.0.1',
      interface: '127.0.0.1',
      port: 30303,
      bootnodes: [],
      staticNodesFile: 'd/static-nodes.json',
      maxPeers: 25,
      isDiscoveryEnabled: true,
      syncMode: 'FULL',
      maxInbound: 15,
    })
  })

  it('reads every option', () => {
    const p2p = config([
      '--p2p-enabled=true',
      '--p2p-host=10.0.0.5',
      '--p2p-interface=0.0.0.0',
      '--p2p-port=0',
      `--bootnodes=${ENODE},${ENODE.replace('30303', '30304')}`,
      '--static-nodes-file=s.json',
      '--max-peers=3',
      '--discovery-enabled=false',
      '--sync-mode=snap',
      '--nat-method=AUTO',
    ]).p2p
    expect(p2p).toEqual({
      isEnabled: true,
      host: '10.0.0.5',
      interface: '0.0.0.0',
      port: 0,
      bootnodes: [ENODE, ENODE.replace('30303', '30304')],
      staticNodesFile: 's.json',
      maxPeers: 3,
      isDiscoveryEnabled: false,
      syncMode: 'SNAP',
      maxInbound: 1,
    })
  })

  it('names the bad option', () => {
    expect(() => config(['--p2p-port=70000'])).toThrow("--p2p-port: '70000'")
    expect(() => config(['--bootnodes=enode://12@1.2.3.4:1'])).toThrow('--bootnodes')
    expect(() => config(['--max-peers=-1'])).toThrow('--max-peers')
    expect(() => config(['--sync-mode=LIGHT'])).toThrow(
      "Invalid value for option --sync-mode: 'LIGHT' (expected one of FULL, SNAP, CHECKPOINT, FAST)",
    )
  })

  it("limits the peers that dial in to Besu's 60 % of --max-peers, or as told", () => {
    expect(config(['--max-peers=10', '--remote-connections-max-percentage=35']).p2p.maxInbound).toBe(3)
    expect(config(['--remote-connections-limit-enabled=false']).p2p.maxInbound).toBeUndefined()
    expect(() => config(['--remote-connections-max-percentage=101'])).toThrow('--remote-connections-max-percentage')
    expect(() => config(['--sync-min-peers=x'])).toThrow("Invalid value for option --sync-min-peers: 'x'")
    expect(() => config(['--fast-sync-min-peers=2'])).not.toThrow()
  })

  it("takes Besu's sync modes (the experimental X_ names too) and the NAT methods that need no traversal", () => {
    expect(config(['--sync-mode=X_CHECKPOINT']).p2p.syncMode).toBe('CHECKPOINT')
    expect(config(['--sync-mode', 'full']).p2p.syncMode).toBe('FULL')
    expect(() => config(['--nat-method=NONE'])).not.toThrow()
    expect(() => config(['--nat-method=UPNP'])).toThrow(
      "Invalid value for option --nat-method: 'UPNP' (Basalt has no NAT traversal: use NONE and set --p2p-host to the address peers reach)",
    )
    expect(() => config(['--nat-method=DOCKER'])).toThrow('no NAT traversal')
    expect(() => config(['--nat-method=bogus'])).toThrow(
      'expected one of NONE, AUTO, UPNP, UPNPP2PONLY, DOCKER, KUBERNETES',
    )
  })

  it('serves metrics only when enabled, on 127.0.0.1:9545 by default', () => {
    expect(config([]).metrics).toEqual({ isEnabled: false, host: '127.0.0.1', port: 9545 })
    expect(config(['--metrics-enabled', '--metrics-port=0']).metrics.port).toBe(0)
  })
})
