import pkg from '../../package.json' with { type: 'json' }
import { runtimeTag } from '../runtime/runtime.ts'

export const VERSION: string = pkg.version
/** What `web3_clientVersion` answers, in Besu's shape `name/vX/os-arch/runtime`. */
export function clientVersion(identity?: string, isAnvilCompatible = false): string {
  const name = identity ? `basalt/${identity}` : 'basalt'
  const version = `${name}/v${VERSION}/${process.platform}-${process.arch}/${runtimeTag()}`
  return isAnvilCompatible ? `${ANVIL_COMPATIBLE_PREFIX}${version}` : version
}

/**
 * Hardhat's network helpers refuse a node whose version does not start with `hardhat`, `zksync` or
 * `anvil`; Foundry looks for `anvil` too. The dev network announces itself Anvil-compatible, with
 * Basalt's own version after the prefix.
 */
export const ANVIL_COMPATIBLE_PREFIX = 'anvil/v1.0.0-compatible/'
