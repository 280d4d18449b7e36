/**
 * libsecp256k1 as a native addon, from the prebuilt N-API binaries the `secp256k1` package ships
 * (linux x64 glibc and musl, darwin arm64, win32 x64; they need no install script). Each is named
 * by a literal `require`, so `bun build --compile` embeds the one of its platform in the executable.
 * Undefined where no prebuilt binary fits or the runtime cannot load N-API addons; callers then keep
 * the pure JavaScript curve.
 */
import { createRequire } from 'node:module'

/** The addon's own interface (secp256k1-node's `Secp256k1` class): 0 means success. */
export interface NativeSecp256k1 {
  /** Writes the public key (65 bytes: uncompressed, 33: compressed) into `output`. */
  ecdsaRecover(output: Uint8Array, signature64: Uint8Array, recid: number, msg32: Uint8Array): number
}

type Addon = { Secp256k1: new () => NativeSecp256k1 }

declare const require: ((id: string) => unknown) | undefined

let loaded: NativeSecp256k1 | null | undefined

/** The addon, loaded on first use; undefined when it cannot be loaded here. */
export function nativeSecp256k1(): NativeSecp256k1 | undefined {
  if (loaded === undefined) {
    try {
      loaded = new (loadAddon() as Addon).Secp256k1()
    } catch {
      loaded = null
    }
  }
  return loaded ?? undefined
}

/**
 * Under Bun the literal `require` calls are what the bundler embeds (a `require` held in a variable
 * is not followed); other runtimes resolve the same files from node_modules through `createRequire`.
 */
function loadAddon(): unknown {
  const platform = `${process.platform}-${process.arch}`
  if (typeof require !== 'function') return loadFromPackage(createRequire(import.meta.url), platform)
  switch (platform) {
    case 'linux-x64':
      try {
        return require('secp256k1/prebuilds/linux-x64/secp256k1.glibc.node')
      } catch {
        return require('secp256k1/prebuilds/linux-x64/secp256k1.musl.node')
      }
    case 'darwin-arm64':
      return require('secp256k1/prebuilds/darwin-arm64/secp256k1.node')
    case 'win32-x64':
      return require('secp256k1/prebuilds/win32-x64/secp256k1.node')
    default:
      throw new Error(`no prebuilt secp256k1 addon for ${platform}`)
  }
}

function loadFromPackage(req: (id: string) => unknown, platform: string): unknown {
  const dir = `secp256k1/prebuilds/${platform}`
  if (platform !== 'linux-x64') return req(`${dir}/secp256k1.node`)
  try {
    return req(`${dir}/secp256k1.glibc.node`)
  } catch {
    return req(`${dir}/secp256k1.musl.node`)
  }
}
