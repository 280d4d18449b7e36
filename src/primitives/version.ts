import pkg from '../../package.json' with { type: 'json' }

export const VERSION: string = pkg.version
/** What `web3_clientVersion` answers, in Besu's shape `name/vX/os-arch/runtime`. */
export function clientVersion(identity?: string): string {
  const runtime = typeof Bun !== 'undefined' ? `bun-${Bun.version}` : `node-${process.versions.node}`
  const name = identity ? `basalt/${identity}` : 'basalt'
  return `${name}/v${VERSION}/${process.platform}-${process.arch}/${runtime}`
}
