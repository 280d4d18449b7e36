/**
 * KZG for blob transactions, loaded on first need and never on the event loop: loading the trusted
 * setup is seconds of synchronous WebAssembly, so a worker thread does it and the main thread only
 * restores the result (kzgSnapshot.ts, about 70 ms). Decoding a blob transaction needs no KZG
 * (kzgStandIn.ts); only verifying blobs and the point-evaluation precompile wait for the load, and
 * they wait asynchronously, so every other request is served meanwhile.
 */
import type { Common } from '@ethereumjs/common'
import { excludedFromDeadline } from '../evm/executionDeadline.ts'
import { createLogger } from '../primitives/logger.ts'
import { entryPointSpecifier } from '../runtime/runtime.ts'
import { hasWorkers, type RunningWorker, startWorker } from '../runtime/worker.ts'
import { readKzgCache, writeKzgCache } from './kzgCache.ts'
import { loadKzgMemory, restoreKzg } from './kzgSnapshot.ts'

const log = createLogger('kzg')
/** Longest a request waits for the load before it fails (the load goes on). */
const KZG_WAIT_MS = 120_000
let loading: Promise<unknown> | undefined

/** Loads KZG's memory in a worker thread; in the caller's thread only where workers are missing. */
function loadMemoryOffThread(): Promise<Uint8Array> {
  if (!hasWorkers()) return loadKzgMemory()
  return new Promise((resolve, reject) => {
    let worker: RunningWorker | undefined
    const settle = (memory: Uint8Array | undefined, error?: string) => {
      worker?.terminate()
      if (memory) resolve(memory)
      else reject(new Error(`KZG trusted setup failed to load: ${error}`))
    }
    // make build compiles kzgWorker.ts as a second entry point of the executable.
    startWorker<{ memory?: Uint8Array; error?: string }>(
      entryPointSpecifier('chain/kzgWorker.ts', new URL('../', import.meta.url).href),
      {
        onMessage: (data) => settle(data.memory, data.error),
        onError: (message) => settle(undefined, message),
      },
    ).then((w) => {
      worker = w
    }, reject)
  })
}

/** Keeps the loaded KZG in `file` (in the data path), so that a restarted node need not load it again. */
export function useKzgCache(file: string): void {
  cacheFile = file
}
let cacheFile: string | undefined

/** Starts loading KZG (once per process) and resolves to it. */
function loadKzg(): Promise<unknown> {
  loading ??= (async () => {
    const startedMs = Date.now()
    const cached = cacheFile === undefined ? undefined : await readKzgCache(cacheFile)
    if (cached) {
      log.info('KZG trusted setup restored', { ms: Date.now() - startedMs, from: cacheFile })
      return cached
    }
    const memory = await loadMemoryOffThread()
    const restoredAtMs = Date.now()
    const kzg = await restoreKzg(memory)
    log.info('KZG trusted setup loaded', { ms: Date.now() - startedMs, restoreMs: Date.now() - restoredAtMs })
    if (cacheFile !== undefined) {
      const file = cacheFile
      writeKzgCache(file, memory).catch((e: Error) => log.warn('KZG cache not written', { file, error: e.message }))
    }
    return kzg
  })()
  return loading
}

/** Makes `common.customCrypto.kzg` available, waiting at most KZG_WAIT_MS for the load. */
export async function ensureKzgFor(common: Common): Promise<void> {
  const crypto = common.customCrypto as { kzg?: unknown }
  if (crypto.kzg && !(crypto.kzg as { isKzgStandIn?: boolean }).isKzgStandIn) return
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error('the KZG trusted setup is still loading; try again shortly')),
      KZG_WAIT_MS,
    )
  })
  try {
    // Loading takes seconds: a request waiting for it is not spending its EVM time.
    crypto.kzg = await excludedFromDeadline(() => Promise.race([loadKzg(), timeout]))
  } finally {
    clearTimeout(timer)
  }
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
