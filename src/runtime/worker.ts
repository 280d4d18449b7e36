/**
 * Worker threads on all three runtimes: Bun and Deno have the web's `Worker` (Deno only for module
 * workers), Node has `worker_threads`, whose worker talks through `parentPort` instead of `self`.
 */
import { runtimeName } from './runtime.ts'

export interface WorkerHandlers<T> {
  onMessage(data: T): void
  onError(message: string): void
}

/** A started worker; `terminate` ends it. */
export interface RunningWorker {
  terminate(): void
}

/** Starts the module at `specifier` (a URL) as a worker; the first message or error ends nothing by itself. */
export async function startWorker<T>(specifier: string, handlers: WorkerHandlers<T>): Promise<RunningWorker> {
  if (runtimeName() === 'node') {
    const { Worker } = await import('node:worker_threads')
    const worker = new Worker(new URL(specifier))
    worker.on('message', (data: T) => handlers.onMessage(data))
    worker.on('error', (e: Error) => handlers.onError(e.message))
    return { terminate: () => void worker.terminate() }
  }
  const worker = new Worker(specifier, { type: 'module' })
  worker.onmessage = (event: MessageEvent<T>) => handlers.onMessage(event.data)
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault()
    handlers.onError(event.message)
  }
  return { terminate: () => worker.terminate() }
}

/** Whether this runtime can start a worker thread at all. */
export function hasWorkers(): boolean {
  return runtimeName() === 'node' || typeof Worker !== 'undefined'
}

/** Inside a worker: sends `message` to the thread that started it, moving `transfer`. */
export async function postToParent(message: unknown, transfer: ArrayBuffer[] = []): Promise<void> {
  if (runtimeName() === 'node') {
    const { parentPort } = await import('node:worker_threads')
    parentPort?.postMessage(message, transfer)
    return
  }
  ;(globalThis as unknown as { postMessage(m: unknown, t: ArrayBuffer[]): void }).postMessage(message, transfer)
}
