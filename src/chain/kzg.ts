/**
 * KZG for blob transactions, loaded on first need and never on the event loop: loading the trusted
 * setup is seconds of synchronous WebAssembly, so a worker thread does it and the main thread only
 * restores the result (kzgSnapshot.ts, about 70 ms). The worker keeps its KZG and verifies blob
 * sidecars (seconds for six blobs), so that is off the event loop too. Decoding a blob transaction
 * needs no KZG (kzgStandIn.ts, sidecarCheck.ts); only verifying blobs and the point-evaluation
 * precompile wait for the load, and they wait asynchronously, so every other request is served.
 */
import type { Common } from '@ethereumjs/common'
import { excludedFromDeadline } from '../evm/executionDeadline.ts'
import { createLogger } from '../primitives/logger.ts'
import { readKzgCache, writeKzgCache } from './kzgCache.ts'
import { loadKzgMemory, restoreKzg } from './kzgSnapshot.ts'
import type { FromKzgWorker, ToKzgWorker } from './kzgWorker.ts'
import { runSidecarCheck, type SidecarCheck } from './sidecarCheck.ts'

const log = createLogger('kzg')
/** Longest a request waits for the load before it fails (the load goes on). */
const KZG_WAIT_MS = 120_000
let loading: Promise<unknown> | undefined

/**
 * Where the worker's module is. In the compiled executable (`make build` lists kzgWorker.ts as a
 * second entry point) it is embedded under the executable's virtual root, where import.meta.url,
 * fixed at build time, does not point; from source it sits beside this file.
 */
function workerSpecifier(): string {
  const main = typeof Bun === 'undefined' ? '' : Bun.main
  return main.startsWith(COMPILED_ROOT)
    ? `${COMPILED_ROOT}chain/kzgWorker.ts`
    : new URL('./kzgWorker.ts', import.meta.url).href
}
const COMPILED_ROOT = '/$bunfs/root/'

/** The worker holding its own KZG (kzgWorker.ts), once loaded; it verifies blob sidecars. */
let worker: Worker | undefined
/** The loaded module's memory, kept to start the worker again after a verification timed out. */
let snapshot: Uint8Array | undefined
const pending = new Map<number, { resolve(refusal: string | undefined): void; reject(e: Error): void }>()
let nextCheckId = 0

/** Starts a KZG worker with `init`; resolves, once its KZG is ready, to the memory it loaded. */
function startWorker(
  init: { type: 'load' } | { type: 'restore'; memory: Uint8Array },
): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const started = new Worker(workerSpecifier())
    const fail = (error: string) => {
      void started.terminate()
      if (worker === started) dropWorker(new Error(`the KZG worker stopped: ${error}`))
      reject(new Error(`KZG trusted setup failed to load: ${error}`))
    }
    started.onmessage = (event: MessageEvent<FromKzgWorker>) => {
      const message = event.data
      if (message.type === 'loaded') {
        // Idle from now on: it must not keep the process alive.
        ;(started as { unref?: () => void }).unref?.()
        worker = started
        resolve(message.memory)
      } else if (message.type === 'failed') fail(message.error)
      else {
        pending.get(message.id)?.resolve(message.refusal)
        pending.delete(message.id)
      }
    }
    started.onerror = (event) => fail(event.message)
    started.postMessage(init, init.type === 'load' ? [] : [init.memory.buffer as ArrayBuffer])
  })
}

/** Stops the worker; the checks it had not answered fail with `error`. */
function dropWorker(error: Error): void {
  void worker?.terminate()
  worker = undefined
  for (const waiting of pending.values()) waiting.reject(error)
  pending.clear()
}

/** Loads KZG in a worker thread (which keeps it); in the caller's thread only where workers are missing. */
async function loadOffThread(): Promise<{ kzg: unknown; memory: Uint8Array }> {
  if (typeof Worker === 'undefined') return loadKzgMemory()
  const memory = await startWorker({ type: 'load' })
  if (!memory) throw new Error('KZG trusted setup failed to load: the worker sent no memory')
  const restoredAtMs = Date.now()
  const kzg = await restoreKzg(memory)
  log.debug('KZG restored from the worker', { ms: Date.now() - restoredAtMs })
  return { kzg, memory }
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
      snapshot = cached.memory
      log.info('KZG trusted setup restored', { ms: Date.now() - startedMs, from: cacheFile })
      return cached.kzg
    }
    const { kzg, memory } = await loadOffThread()
    snapshot = memory
    log.info('KZG trusted setup loaded', { ms: Date.now() - startedMs })
    if (cacheFile !== undefined) {
      const file = cacheFile
      writeKzgCache(file, memory).catch((e: Error) => log.warn('KZG cache not written', { file, error: e.message }))
    }
    return kzg
  })()
  return loading
}

/**
 * Verifies a blob sidecar in the KZG worker, so that the seconds it takes never hold the event loop;
 * resolves to the library's refusal message, or undefined when the proofs hold. Waits for KZG to load
 * (as `ensureKzgFor`) and at most SIDECAR_CHECK_MS for the verification itself.
 */
export async function verifySidecar(common: Common, check: SidecarCheck): Promise<string | undefined> {
  await ensureKzgFor(common)
  if (typeof Worker === 'undefined' || !snapshot) return runSidecarCheck(common.customCrypto.kzg, check)
  const run = checks.then(() => checkInWorker(snapshot as Uint8Array, check))
  checks = run.catch(() => undefined)
  // Waiting for the worker is not spending EVM time.
  return excludedFromDeadline(() => run)
}
/** The checks, one after another, so that each one's time limit counts its own run only. */
let checks: Promise<unknown> = Promise.resolve()

async function checkInWorker(memory: Uint8Array, check: SidecarCheck): Promise<string | undefined> {
  if (!worker) await startWorker({ type: 'restore', memory: memory.slice() })
  const running = worker as Worker & { ref?: () => void; unref?: () => void }
  const id = nextCheckId++
  let timer: ReturnType<typeof setTimeout> | undefined
  // Held while it checks (a command such as `blocks import` must not exit meanwhile), idle otherwise.
  running.ref?.()
  try {
    return await new Promise<string | undefined>((resolve, reject) => {
      pending.set(id, { resolve, reject })
      timer = setTimeout(
        () => dropWorker(new Error(`KZG verification of blobs took longer than ${SIDECAR_CHECK_MS / 1000} s`)),
        SIDECAR_CHECK_MS,
      )
      running.postMessage({ type: 'check', id, check } satisfies ToKzgWorker)
    })
  } finally {
    clearTimeout(timer)
    pending.delete(id)
    running.unref?.()
  }
}
/** Longest one sidecar's verification may take (a 6-blob one takes seconds on a loaded machine). */
const SIDECAR_CHECK_MS = 60_000

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
