/**
 * KZG for blob transactions, made ready on first need and never loaded on the event loop. Loading a
 * trusted setup is seconds of synchronous WebAssembly; the mainnet setup comes loaded already with the
 * executable (kzgPrebuilt.ts), so the main thread only restores it (kzgSnapshot.ts, about 100 ms). A
 * setup given with `--kzg-trusted-setup` is loaded by a worker thread, which hands back the result.
 * The worker keeps its KZG and verifies blob sidecars (seconds for six blobs), so that is off the
 * event loop too. Decoding a blob transaction needs no KZG (kzgStandIn.ts, sidecarCheck.ts); only
 * verifying blobs and the point-evaluation precompile wait for it, and they wait asynchronously, so
 * every other request is served.
 */
import type { Common } from '@ethereumjs/common'
import { excludedFromDeadline } from '../evm/executionDeadline.ts'
import { createLogger } from '../primitives/logger.ts'
import { entryPointSpecifier } from '../runtime/runtime.ts'
import { type StartedWorker, startWorker as startThread } from '../runtime/worker.ts'
import { readPrebuiltKzg } from './kzgPrebuilt.ts'
import { restoreKzg } from './kzgSnapshot.ts'
import type { TrustedSetup } from './kzgTrustedSetup.ts'
import type { FromKzgWorker, KzgAnswer, KzgQuestion, KzgSetUp, ToKzgWorker } from './kzgWorker.ts'
import { cellProofsOf, runSidecarCheck, type SidecarCheck } from './sidecarCheck.ts'

const log = createLogger('kzg')
/** Longest a request waits for the load before it fails (the load goes on). */
const KZG_WAIT_MS = 120_000
let loading: Promise<unknown> | undefined

/** The worker holding its own KZG (kzgWorker.ts), once loaded; it verifies blob sidecars. */
let worker: StartedWorker<ToKzgWorker, FromKzgWorker> | undefined
/** The loaded module's memory, kept to start the worker again after a verification timed out. */
let snapshot: Uint8Array | undefined
const pending = new Map<number, { resolve(answer: KzgAnswer): void; reject(e: Error): void }>()
let nextQuestionId = 0

/** Starts a KZG worker with `init`; resolves, once its KZG is ready, to the memory it loaded. */
function startWorker(init: KzgSetUp): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    // make build compiles kzgWorker.ts as a second entry point of the executable.
    const started = startThread<ToKzgWorker, FromKzgWorker>(
      entryPointSpecifier('chain/kzgWorker.ts', new URL('../', import.meta.url).href),
    )
    const fail = (error: string) => {
      void started.terminate()
      if (worker === started) dropWorker(new Error(`the KZG worker stopped: ${error}`))
      reject(new Error(`KZG trusted setup failed to load: ${error}`))
    }
    started.onMessage((message) => {
      if (message.type === 'loaded') {
        // Idle from now on: it must not keep the process alive.
        started.unref()
        worker = started
        resolve(message.memory)
      } else if (message.type === 'failed') fail(message.error)
      else {
        pending.get(message.id)?.resolve(message)
        pending.delete(message.id)
      }
    })
    started.onError(fail)
    started.postMessage(init, init.type === 'load' ? [] : [init.memory.buffer as ArrayBuffer])
  })
}

/** Stops the worker; the checks it had not answered fail with `error`. */
function dropWorker(error: Error): void {
  worker?.terminate()
  worker = undefined
  for (const waiting of pending.values()) waiting.reject(error)
  pending.clear()
}

/** Loads KZG of `setup` (else the mainnet setup) in a worker thread (which keeps it). */
async function loadOffThread(setup?: TrustedSetup): Promise<{ kzg: unknown; memory: Uint8Array }> {
  const memory = await startWorker({ type: 'load', setup })
  if (!memory) throw new Error('KZG trusted setup failed to load: the worker sent no memory')
  const restoredAtMs = Date.now()
  const kzg = await restoreKzg(memory)
  log.debug('KZG restored from the worker', { ms: Date.now() - restoredAtMs })
  return { kzg, memory }
}

/** Uses `setup` (Besu's `--kzg-trusted-setup`) instead of the mainnet setup; before KZG is first needed. */
export function useKzgTrustedSetup(setup: TrustedSetup, file: string): void {
  custom = { setup, file }
}
let custom: { setup: TrustedSetup; file: string } | undefined

/** Makes KZG ready (once per process) and resolves to it. */
function loadKzg(): Promise<unknown> {
  loading ??= (async () => {
    const startedMs = Date.now()
    const prebuilt = custom === undefined ? await readPrebuiltKzg() : undefined
    if (prebuilt) {
      snapshot = prebuilt.memory
      log.info('KZG trusted setup restored', { ms: Date.now() - startedMs })
      return prebuilt.kzg
    }
    const { kzg, memory } = await loadOffThread(custom?.setup)
    snapshot = memory
    log.info('KZG trusted setup loaded', { ms: Date.now() - startedMs, ...(custom && { from: custom.file }) })
    return kzg
  })()
  return loading
}

/**
 * Verifies a blob sidecar in the KZG worker, so that the seconds it takes never hold the event loop;
 * resolves to the library's refusal message, or undefined when the proofs hold. Waits for KZG to load
 * (as `ensureKzgFor`) and at most KZG_WORK_MS for the verification itself.
 */
export async function verifySidecar(common: Common, check: SidecarCheck): Promise<string | undefined> {
  const main = await mainThreadKzg(common)
  if (main) return runSidecarCheck(main, check)
  return (await askWorker({ type: 'check', check })).refusal
}

/** The EIP-7594 cell proofs of `blob`, computed in the KZG worker (as `verifySidecar`). */
export async function computeCellProofs(common: Common, blob: string): Promise<string[]> {
  const main = await mainThreadKzg(common)
  if (main) return cellProofsOf(main, blob)
  const { proofs, error } = await askWorker({ type: 'cellProofs', blob })
  if (!proofs) throw new Error(`KZG cell proofs not computed: ${error}`)
  return proofs
}

/** Waits for KZG; returns the main thread's only where no worker can do the work (no snapshot of it). */
async function mainThreadKzg(common: Common): Promise<unknown | undefined> {
  await ensureKzgFor(common)
  return !snapshot ? common.customCrypto.kzg : undefined
}

/** Asks the worker, after the questions before (so each one's time limit counts its own run only). */
function askWorker(question: KzgQuestion): Promise<KzgAnswer> {
  const memory = snapshot as Uint8Array
  const run = queue.then(() => askNow(memory, question))
  queue = run.catch(() => undefined)
  // Waiting for the worker is not spending EVM time.
  return excludedFromDeadline(() => run)
}
let queue: Promise<unknown> = Promise.resolve()

async function askNow(memory: Uint8Array, question: KzgQuestion): Promise<KzgAnswer> {
  if (!worker) await startWorker({ type: 'restore', memory: memory.slice() })
  const running = worker as StartedWorker<ToKzgWorker, FromKzgWorker>
  const id = nextQuestionId++
  let timer: ReturnType<typeof setTimeout> | undefined
  // Held while it works (a command such as `blocks import` must not exit meanwhile), idle otherwise.
  running.ref()
  try {
    return await new Promise<KzgAnswer>((resolve, reject) => {
      pending.set(id, { resolve, reject })
      timer = setTimeout(
        () => dropWorker(new Error(`${WORK_NAMES[question.type]} took longer than ${KZG_WORK_MS / 1000} s`)),
        KZG_WORK_MS,
      )
      running.postMessage({ ...question, id } satisfies ToKzgWorker)
    })
  } finally {
    clearTimeout(timer)
    pending.delete(id)
    running.unref()
  }
}
/** Longest one question may take (a 6-blob sidecar takes seconds on a loaded machine). */
const KZG_WORK_MS = 60_000
const WORK_NAMES = { check: 'KZG verification of blobs', cellProofs: 'computing KZG cell proofs' }

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
