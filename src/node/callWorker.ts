/**
 * Worker thread answering eth_call and eth_estimateGas at the head of a BONSAI data path
 * (node/callPool.ts decides which calls come here; workerChain.ts answers them, several at a time
 * when a long one runs).
 */
import { setLogLevel } from '../primitives/logger.ts'
import { parentThread } from '../runtime/worker.ts'
import { decodeQuestion, type FromCallWorker, type ToCallWorker, WorkerChain } from './workerChain.ts'

const self = parentThread<ToCallWorker, FromCallWorker>()
let opened: Promise<WorkerChain> | undefined

self.onMessage((message) => {
  if (typeof message !== 'string') {
    // The node has logged the chain's opening; a worker logs failures only.
    setLogLevel('WARN')
    opened = WorkerChain.open(message.init)
    opened.then(
      () => self.postMessage({ type: 'ready' }),
      (e) => self.postMessage({ type: 'failed', error: e instanceof Error ? e.message : String(e) }),
    )
    return
  }
  const worker = opened
  if (!worker) return
  void worker.then(async (chain) => self.postMessage(JSON.stringify(await chain.answer(decodeQuestion(message)))))
})
