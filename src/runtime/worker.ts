/**
 * Worker threads on all three runtimes. Bun and Deno have the web's module `Worker`; Node has
 * `worker_threads`, whose worker hears and answers through `parentPort` instead of `self`. Both
 * sides get one shape here, so a worker module (chain/kzgWorker.ts) and the code starting it do not
 * know which runtime they run on.
 */
import { parentPort, Worker as ThreadWorker } from 'node:worker_threads'
import { runtimeName } from './runtime.ts'

/** A started worker, seen from the thread that started it. */
export interface StartedWorker<In, Out> {
  postMessage(message: In, transfer?: ArrayBuffer[]): void
  /** Called with each message the worker posts. */
  onMessage(handler: (message: Out) => void): void
  /** Called with the message of an error the worker did not catch. */
  onError(handler: (message: string) => void): void
  /** Lets the worker keep the process alive (`ref`) or not (`unref`); nothing where the runtime cannot. */
  ref(): void
  unref(): void
  terminate(): void
}

/** The thread that started this worker, seen from inside the worker. */
export interface ParentPort<In, Out> {
  postMessage(message: Out, transfer?: ArrayBuffer[]): void
  onMessage(handler: (message: In) => void): void
}

/** Starts the module at `specifier` (a URL, see `entryPointSpecifier`) as a worker thread. */
export function startWorker<In, Out>(specifier: string): StartedWorker<In, Out> {
  if (runtimeName() === 'node') {
    const thread = new ThreadWorker(new URL(specifier))
    return {
      postMessage: (message, transfer) => thread.postMessage(message, transfer),
      onMessage: (handler) => void thread.on('message', handler),
      onError: (handler) => void thread.on('error', (e: Error) => handler(e.message)),
      ref: () => thread.ref(),
      unref: () => thread.unref(),
      terminate: () => void thread.terminate(),
    }
  }
  const worker = new Worker(specifier, { type: 'module' }) as Worker & { ref?: () => void; unref?: () => void }
  return {
    postMessage: (message, transfer = []) => worker.postMessage(message, transfer),
    onMessage: (handler) => {
      worker.onmessage = (event: MessageEvent<Out>) => handler(event.data)
    },
    onError: (handler) => {
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault()
        handler(event.message)
      }
    },
    ref: () => worker.ref?.(),
    unref: () => worker.unref?.(),
    terminate: () => worker.terminate(),
  }
}

/** Inside a worker: the channel to the thread that started it. */
export function parentThread<In, Out>(): ParentPort<In, Out> {
  if (runtimeName() === 'node') {
    const port = parentPort
    if (!port) throw new Error('not running in a worker thread')
    return {
      postMessage: (message, transfer = []) => port.postMessage(message, transfer),
      onMessage: (handler) => void port.on('message', handler),
    }
  }
  const self = globalThis as unknown as {
    postMessage(message: Out, transfer?: ArrayBuffer[]): void
    onmessage: ((event: MessageEvent<In>) => void) | null
  }
  return {
    postMessage: (message, transfer = []) => self.postMessage(message, transfer),
    onMessage: (handler) => {
      self.onmessage = (event) => handler(event.data)
    },
  }
}
