/**
 * enode URLs (`enode://<128 hex id>@<host>:<port>?discport=<udp>`): parsing with Besu's error
 * messages for the admin methods, and formatting our own.
 */

export interface Enode {
  /** The node id: 64-byte public key as lowercase hex without 0x. */
  id: string
  host: string
  port: number
  discoveryPort: number
}

/** Thrown for a string that is not a usable enode URL: the node id is malformed, or the rest is. */
export class EnodeError extends Error {
  readonly kind: 'invalidNodeId' | 'invalidUrl'

  constructor(kind: 'invalidNodeId' | 'invalidUrl') {
    super(kind === 'invalidNodeId' ? 'invalid node id in enode URL' : 'invalid enode URL')
    this.kind = kind
  }
}

const ENODE = /^enode:\/\/([0-9a-fA-F]{128})@(\[[0-9a-fA-F:.]+\]|[^:/?@\s]+):(\d{1,5})(\?discport=(\d{1,5}))?$/

/** Parses an enode URL; throws EnodeError naming what is wrong. */
export function parseEnode(url: string): Enode {
  const m = ENODE.exec(url.trim())
  if (!m) {
    if (/^enode:\/\/[^@]*@/.test(url) && !/^enode:\/\/[0-9a-fA-F]{128}@/.test(url))
      throw new EnodeError('invalidNodeId')
    throw new EnodeError('invalidUrl')
  }
  const port = Number(m[3])
  const discoveryPort = m[5] === undefined ? port : Number(m[5])
  if (port > 65535 || discoveryPort > 65535) throw new EnodeError('invalidUrl')
  return { id: m[1].toLowerCase(), host: m[2].replace(/^\[|\]$/g, ''), port, discoveryPort }
}

/** The enode URL of a node; `?discport=` only when discovery listens elsewhere than TCP. */
export function formatEnode(e: Enode): string {
  const host = e.host.includes(':') ? `[${e.host}]` : e.host
  const disc = e.discoveryPort === e.port ? '' : `?discport=${e.discoveryPort}`
  return `enode://${e.id}@${host}:${e.port}${disc}`
}
