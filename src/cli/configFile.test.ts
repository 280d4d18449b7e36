/**
 * `basalt run`'s options from a Besu-style TOML file and from the environment (`BASALT_*`, Besu's
 * `BESU_*`): what the reader takes, what it refuses and where, and which source wins.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import cac from 'cac'
import { afterAll, describe, expect, it } from '../runtime/testing.ts'
import { expandOptionSources, runOptionNames } from './configFile.ts'
import { runConfig } from './runArgs.test-helper.ts'
import { registerRunCommand } from './runCommand.ts'

/** The dev network's local-transaction checks: no fee cap, no replay protection required. */
const NO_CAP = { txFeeCap: 0n, isReplayProtectionRequired: false }

const dir = mkdtempSync(join(tmpdir(), 'basalt-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function names() {
  const cli = cac('basalt')
  registerRunCommand(cli)
  return runOptionNames(cli)
}

function file(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

/** The NodeConfig of `run ARGS` with the environment and the config file applied. */
function config(args: string[], env: Record<string, string> = {}) {
  return runConfig(expandOptionSources(['run', ...args], names(), env).slice(1))
}

describe('expandOptionSources', () => {
  it('applies the file under the command line, as Besu: the command line wins', () => {
    const path = file(
      'node.toml',
      'rpc-http-port=9545\nrpc-http-api=["ETH","NET","TXPOOL"]\nrpc-ws-enabled=false\nmin-gas-price=7\n',
    )
    const c = config(['--config-file', path, '--rpc-http-port', '18545'])
    expect([c.http.port, c.http.apis, c.ws.isEnabled, c.minGasPrice]).toEqual([
      18545,
      ['ETH', 'NET', 'TXPOOL'],
      false,
      7n,
    ])
    expect(config([`--config-file=${path}`]).http.port).toBe(9545)
  })

  it("takes BASALT_ and Besu's BESU_ variables between the two, and the file's name from them too", () => {
    const path = file('env.toml', 'rpc-http-port=9545\nidentity="from-file"\n')
    const env = { BESU_RPC_HTTP_PORT: '9001', BESU_IDENTITY: 'besu', BASALT_IDENTITY: 'basalt', BESU_CONFIG_FILE: path }
    const c = config([], env)
    expect([c.http.port, c.identity]).toEqual([9001, 'basalt'])
    expect(config(['--rpc-http-port', '1234'], env).http.port).toBe(1234)
    expect(config([], { BESU_RPC_HTTP_ENABLED: 'false' }).http.isEnabled).toBe(false)
  })

  it('leaves variables that name no run option alone (a container may set BESU_VERSION)', () => {
    const env = { BESU_VERSION: '24.1.0', BESU_PID_PATH: '/tmp/pid', BASALT_BIN: '/x', BESU_HELP: 'true' }
    expect(expandOptionSources(['run'], names(), env)).toEqual(['run'])
  })

  it('refuses a key that is no option, a flag given a string and nested arrays, naming the file', () => {
    const cases: [string, string][] = [
      ['privacy-enabled=true', 'Unknown option in TOML configuration file'],
      ['config-file="other.toml"', 'Unknown option in TOML configuration file'],
      ['rpc-http-enabled="yes"', 'Invalid value for option rpc-http-enabled in'],
      ['rpc-http-api=[["ETH"]]', 'nested arrays'],
      ['rpc-http-port=[', 'Invalid TOML configuration in'],
    ]
    for (const [text, message] of cases) {
      const path = file('bad.toml', text)
      expect(() => config(['--config-file', path])).toThrow(message)
      expect(() => config(['--config-file', path])).toThrow(path)
    }
    expect(() => config(['--config-file', join(dir, 'absent.toml')])).toThrow(
      'Unable to read TOML configuration, file not found',
    )
  })

  it("applies Besu's ENTERPRISE / PRIVATE profile under every other source", () => {
    const c = config(['--profile=ENTERPRISE'])
    expect(c.p2p.syncMode).toBe('FULL')
    expect(c.dataStorageFormat).toBe('FOREST')
    expect(c.minGasPrice).toBe(0n)
    expect(c.txPool).toEqual({
      kind: 'SEQUENCED',
      maxFutureBySender: 615,
      retentionMs: 13 * 3_600_000,
      isLocalPriority: false,
      prioritySenders: [],
      ...NO_CAP,
    })
    // The command line, the environment and the file each win over it.
    const path = file('profile.toml', 'profile="private"\nmin-gas-price=7\n')
    const mixed = config(['--config-file', path, '--data-storage-format=BONSAI'], { BESU_SYNC_MODE: 'SNAP' })
    expect([mixed.minGasPrice, mixed.dataStorageFormat, mixed.p2p.syncMode]).toEqual([7n, 'BONSAI', 'SNAP'])
    expect(mixed.txPool.kind).toBe('SEQUENCED')
    // A layered pool asked for keeps the profile's sequenced limit out, as Besu does.
    expect(config(['--profile=enterprise', '--tx-pool=LAYERED']).txPool.maxFutureBySender).toBe(200)
    expect(config(['--profile=DEV']).network).toBe('dev')
  })

  it('refuses a profile it does not have, saying why for the public-network ones', () => {
    expect(() => config(['--profile=STAKER'])).toThrow(
      "Invalid value for option --profile: 'STAKER' (expected ENTERPRISE, PRIVATE or DEV; Besu's STAKER profile tunes a public-network node)",
    )
    expect(() => config(['--profile', 'nope'])).toThrow(
      "Invalid value for option --profile: 'nope' (expected ENTERPRISE, PRIVATE or DEV)",
    )
  })

  it('leaves the other commands alone', () => {
    const argv = ['blocks', 'import', '--config-file', 'x.toml']
    expect(expandOptionSources(argv, names(), { BESU_DATA_PATH: '/d' })).toBe(argv)
  })
})

describe("host allowlists and CORS origins as Besu's options read them", () => {
  it('takes all for *, none for nothing, and refuses either beside other entries', () => {
    expect(config(['--rpc-http-cors-origins', 'all']).http.corsOrigins).toEqual(['*'])
    expect(config(['--host-allowlist', 'all']).hostAllowlist).toEqual(['*'])
    expect(config(['--host-allowlist', 'none']).hostAllowlist).toEqual([])
    expect(config(['--rpc-http-cors-origins', 'http://a.example, http://b.example']).http.corsOrigins).toEqual([
      'http://a.example',
      'http://b.example',
    ])
    expect(() => config(['--host-allowlist', 'all,localhost'])).toThrow(
      "Values '*' or 'all' can't be used with other hostnames",
    )
    expect(() => config(['--rpc-http-cors-origins', 'none,http://a'])).toThrow(
      "Value 'none' can't be used with other domains",
    )
    expect(() => config(['--graphql-http-cors-origins', 'http://a,('])).toThrow(
      'Domain values result in invalid regex pattern',
    )
    expect(config(['--engine-host-allowlist', 'a,, b,']).engine.hostAllowlist).toEqual(['a', 'b'])
  })
})
