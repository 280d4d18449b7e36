/**
 * The call workers (`--rpc-call-workers N`): threads that answer eth_call and eth_estimateGas at
 * the head over read-only connections to the data path's database (callWorker.ts), so that calls
 * use more than the one core the node's thread runs on.
 *
 * When a call goes to a worker: the chain keeps BONSAI state (the flat head tables are what a
 * worker reads), the call is at the block whose state the flat tables hold, every committed state's
 * trie nodes and code are written (`Chain.isStateWritten`: right after a block they wait in memory
 * for the flush, at most a second), the call needs no KZG (blobs), and this thread is already
 * running calls: an idle thread answers at once, so a lone client (c=1) never pays the round trip.
 * A busy one gives the call to whichever of itself and the workers has the fewest calls waiting.
 * A worker that finds the flat tables at another state answers `stale` and the call runs here.
 * Workers start on first use (an idle node holds no worker's memory) and stop with the node.
 */
import type { Block } from '@ethereumjs/block'
import type { Chain } from '../chain/chain.ts'
import type { CallRequest } from '../evm/callService.ts'
import { RpcError } from '../jsonrpc/errors.ts'
import { nextTurn } from '../primitives/clock.ts'
import { createLogger } from '../primitives/logger.ts'
import type { CallOffload, OffloadedMethod } from '../rpc/context.ts'
import { entryPointSpecifier } from '../runtime/runtime.ts'
import { type StartedWorker, startWorker } from '../runtime/worker.ts'
import {
  type CallAnswer,
  type CallQuestion,
  type CallWorkerInit,
  encodeQuestion,
  type FromCallWorker,
  type ToCallWorker,
} from './workerChain.ts'

const log = createLogger('callPool')

/**
 * Calls a busy thread keeps queued at each worker before taking the next one itself. The node's
 * thread also parses and answers every request (about half of a call's cost), so a worker should
 * never run dry: it answers most of the calls, the thread the rest.
 */
const WORKER_DEPTH = 4

/** One worker thread and the questions it has not answered. */
class PoolWorker {
  readonly thread: StartedWorker<ToCallWorker, FromCallWorker>
  isReady = false
  readonly waiting = new Map<number, (answer: CallAnswer | undefined) => void>()

  constructor(thread: StartedWorker<ToCallWorker, FromCallWorker>) {
    this.thread = thread
  }

  /** Sends a question; resolves to its answer, or to undefined when the worker stopped first. */
  ask(question: CallQuestion): Promise<CallAnswer | undefined> {
    return new Promise((resolve) => {
      // Kept alive while a question waits (an idle worker must not keep the process alive).
      if (this.waiting.size === 0) this.thread.ref()
      this.waiting.set(question.id, resolve)
      this.thread.postMessage(encodeQuestion(question))
    })
  }

  /** Hands an answer to its question. */
  settle(answer: CallAnswer): void {
    this.waiting.get(answer.id)?.(answer)
    this.waiting.delete(answer.id)
    if (this.waiting.size === 0) this.thread.unref()
  }

  /** Settles every waiting question with no answer (they run on the node's thread). */
  drop(): void {
    for (const settle of this.waiting.values()) settle(undefined)
    this.waiting.clear()
  }
}

export interface CallPoolOptions {
  size: number
  /** Send every qualifying call to a worker, even from an idle thread (tests). */
  isAlwaysOffloaded?: boolean
}

export class CallPool implements CallOffload {
  private readonly chain: Chain
  private readonly init: CallWorkerInit
  private readonly opts: CallPoolOptions
  private size: number
  private workers: PoolWorker[] = []
  /** Calls this thread has taken and not finished. */
  private running = 0
  /** Calls sent to workers and not answered. */
  private offloaded = 0
  private nextId = 0
  private isClosed = false
  /** Calls answered by workers and by this thread, for the metrics and the tests. */
  readonly counts = { worker: 0, here: 0, stale: 0 }

  constructor(chain: Chain, init: CallWorkerInit, opts: CallPoolOptions) {
    this.chain = chain
    this.init = init
    this.opts = opts
    this.size = opts.size
  }

  async run(method: OffloadedMethod, block: Block, args: unknown[], here: () => Promise<string>): Promise<string> {
    if (!this.isQualified(block, args[0] as CallRequest)) return this.runHere(here)
    if (!this.opts.isAlwaysOffloaded && this.running === 0 && this.offloaded === 0) {
      // A call runs to its end without letting the event loop in, so requests waiting on other
      // connections stay unseen: one turn of the loop lets them in, and they find this one running.
      this.running++
      try {
        await nextTurn()
      } finally {
        this.running--
      }
      if (this.offloaded === 0 && this.running === 0) return this.runHere(here)
    }
    const worker = this.pick()
    if (!worker) return this.runHere(here)
    const stateRoot = this.chain.postStateRoot(block)
    const id = this.nextId++
    this.offloaded++
    const answer = await worker.ask({ type: 'call', id, method, blockHash: block.hash(), stateRoot, args })
    this.offloaded--
    if (!answer || answer.isStale) {
      if (answer) this.counts.stale++
      return this.runHere(here)
    }
    this.counts.worker++
    if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data)
    return answer.result as string
  }

  /** Stops the workers; calls they had not answered run on this thread. */
  close(): void {
    this.isClosed = true
    for (const w of this.workers) {
      w.thread.terminate()
      w.drop()
    }
    this.workers = []
  }

  private async runHere(here: () => Promise<string>): Promise<string> {
    this.running++
    this.counts.here++
    try {
      return await here()
    } finally {
      this.running--
    }
  }

  private isQualified(block: Block, req: CallRequest): boolean {
    const bonsai = this.chain.bonsai
    return (
      bonsai !== undefined &&
      !this.isClosed &&
      req.blobVersionedHashes === undefined &&
      this.chain.isStateWritten &&
      bonsai.isAt(this.chain.postStateRoot(block))
    )
  }

  /** The ready worker with the fewest calls waiting, while it has fewer than WORKER_DEPTH. */
  private pick(): PoolWorker | undefined {
    if (this.workers.length < this.size) this.start()
    let best: PoolWorker | undefined
    for (const w of this.workers) {
      if (w.isReady && (!best || w.waiting.size < best.waiting.size)) best = w
    }
    if (!best) return undefined
    return this.opts.isAlwaysOffloaded || best.waiting.size < WORKER_DEPTH ? best : undefined
  }

  private start(): void {
    // make build compiles callWorker.ts as an entry point of the executable.
    const thread = startWorker<ToCallWorker, FromCallWorker>(
      entryPointSpecifier('node/callWorker.ts', new URL('../', import.meta.url).href),
    )
    const worker = new PoolWorker(thread)
    this.workers.push(worker)
    const fail = (error: string) => {
      log.warn('a call worker stopped; its calls run on the main thread', { error })
      thread.terminate()
      this.workers = this.workers.filter((w) => w !== worker)
      worker.drop()
      // Not started again: a worker that cannot open the chain would fail the same way.
      this.size = this.workers.length
    }
    thread.onMessage((message) => {
      if (typeof message === 'string') worker.settle(JSON.parse(message) as CallAnswer)
      else if (message.type === 'ready') worker.isReady = true
      else if (message.type === 'failed') fail(message.error)
    })
    thread.onError(fail)
    // An idle worker must not keep the process alive.
    thread.unref()
    thread.postMessage({ type: 'init', init: this.init })
  }
}
