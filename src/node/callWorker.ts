/**
 * Worker thread answering eth_call and eth_estimateGas at the head of a BONSAI data path
 * (node/callPool.ts decides which calls come here; workerChain.ts answers them, several at a time
 * when a long one runs), or, told to listen, a listener thread (listenerThread.ts).
 */
import { setLogLevel } from '../primitives/logger.ts'
import { parentThread } from '../runtime/worker.ts'
import { ListenerThread } from './listenerThread.ts'
import { decodeQuestion, type FromCallWorker, type ToCallWorker, WorkerChain } from './workerChain.ts'

const self = parentThread<ToCallWorker, FromCallWorker>()
let opened: Promise<WorkerChain> | undefined
let listener: ListenerThread | undefined

self.onMessage((message) => {
  if (typeof message === 'string') {
    const worker = opened
    if (!worker) return
    void worker.then(async (chain) => self.postMessage(JSON.stringify(await chain.answer(decodeQuestion(message)))))
    return
  }
  switch (message.type) {
    case 'init':
      // The node has logged the chain's opening; a worker logs failures only.
      setLogLevel('WARN')
      opened = WorkerChain.open(message.init)
      opened.then(
        () => self.postMessage({ type: 'ready' }),
        (e) => self.postMessage({ type: 'failed', error: errorText(e) }),
      )
      return
    case 'listen':
      void opened
        ?.then(async (chain) => {
          listener = new ListenerThread(chain, message.listen, (m) =>
            self.postMessage({ type: 'listener', message: m }),
          )
          await listener.listen()
        })
        .catch((e) => self.postMessage({ type: 'failed', error: errorText(e) }))
      return
    case 'listener':
      listener?.receive(message.message)
  }
})

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e))
