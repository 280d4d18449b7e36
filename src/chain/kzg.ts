/**
 * KZG for blob transactions, loaded on first need: loading the trusted setup takes seconds, and a
 * dev chain that never sees a blob transaction should not pay for it at start.
 */
import type { Common } from '@ethereumjs/common'
import { excludedFromDeadline } from '../evm/executionDeadline.ts'
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
  // Loading takes seconds: a request waiting for it is not spending its EVM time.
  crypto.kzg = await excludedFromDeadline(() => loading!)
}

/** Whether `e` is the point-evaluation precompile (0x0a) finding no KZG loaded. */
export function isKzgMissing(e: unknown): boolean {
  return e instanceof Error && e.message.includes('kzg not initialized')
}

/**
 * Runs `fn`; when a transaction it executed called the point-evaluation precompile before KZG was
 * loaded, loads KZG and runs `fn` once more. The failed run leaves its EVM mid-transaction (the
 * library does not unwind that exception), so `fn` must build its state afresh each time.
 */
export async function withKzgOnDemand<T>(common: Common, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    if (!isKzgMissing(e)) throw e
    await ensureKzgFor(common)
    return fn()
  }
}
