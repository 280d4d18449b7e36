/**
 * Checks of `basalt run`'s options that need more than one option or the file system, made before
 * anything starts: a mistake found once the node runs would leave it half started.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { NodeConfig } from '../node/config.ts'
import { CliError } from './cliError.ts'

const ANY_HOST = new Set(['0.0.0.0', '::', ''])

/** Two listeners on one port would fail with the runtime's "port in use" and blame another process. */
export function checkListenerPorts(config: NodeConfig): void {
  const listeners: [string, string, number][] = []
  if (config.http.isEnabled) listeners.push(['rpc-http-port', config.http.host, config.http.port])
  if (config.ws.isEnabled) listeners.push(['rpc-ws-port', config.ws.host, config.ws.port])
  if (config.graphql.isEnabled) listeners.push(['graphql-http-port', config.graphql.host, config.graphql.port])
  if (config.engine.isEnabled) listeners.push(['engine-rpc-port', config.http.host, config.engine.port])
  for (let i = 0; i < listeners.length; i++) {
    for (let j = i + 1; j < listeners.length; j++) {
      const [a, hostA, port] = listeners[i]
      const [b, hostB, portB] = listeners[j]
      const isSameHost = hostA === hostB || ANY_HOST.has(hostA) || ANY_HOST.has(hostB)
      if (port === 0 || port !== portB || !isSameHost) continue
      const hint =
        b === 'rpc-ws-port'
          ? ' (the HTTP port accepts WebSocket upgrades too: --rpc-ws-enabled=false needs no second port)'
          : ''
      throw new CliError(`--${a} and --${b} are both ${port}: each listener needs its own port${hint}`)
    }
  }
}

/** `--config-out` is written once the node listens; a path that cannot be written is refused now. */
export function checkConfigOut(file: string | undefined): void {
  if (file === undefined) return
  const dir = dirname(resolve(file))
  if (!existsSync(dir)) throw new CliError(`Cannot write --config-out ${file}: directory ${dir} does not exist`)
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new CliError(`Cannot write --config-out ${file}: it is a directory`)
  }
  try {
    accessSync(existsSync(file) ? file : dir, constants.W_OK)
  } catch {
    throw new CliError(`Cannot write --config-out ${file}: permission denied`)
  }
}
