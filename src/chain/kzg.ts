/**
 * KZG for blob transactions, loaded on first need: loading the trusted setup takes seconds, and a
 * dev chain that never sees a blob transaction should not pay for it at start.
 */
import type { Common } from '@ethereumjs/common'
import { createLogger } from '../primitives/logger.ts'
import { loadKzgEmbedded } from './kzgEmbedded.ts'

const log = createLogger('kzg')
let loading: Promise<unknown> | undefined

/** Makes `common.customCrypto.kzg` available; resolves at once when it already is. */
export async function ensureKzgFor(common: Common): Promise<void> {
  const crypto = common.customCrypto as { kzg?: unknown }
  if (crypto.kzg) return
  loading ??= (async () => {
    const started = Date.now()
    const { loadKZG } = await import('kzg-wasm')
    const kzg = await loadKZG().catch(() => loadKzgEmbedded(loadKZG))
    log.info('KZG trusted setup loaded', { ms: Date.now() - started })
    return kzg
  })()
  crypto.kzg = await loading
}
