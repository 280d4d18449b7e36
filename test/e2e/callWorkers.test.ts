/**
 * Call workers (`--rpc-call-workers`): concurrent eth_calls are answered by worker threads with the
 * main thread's results, a call right after a block sees that block, the node stops cleanly with
 * its workers running, and a kill -9 in the middle of calls leaves a data path that starts again.
 */
import { describe, expect, it } from 'bun:test'
import { signTransfer, startNode, stopWithSigterm } from './harness.ts'

const RECIPIENT = '0x000000000000000000000000000000000000beef'
const CONTRACT = '0x00000000000000000000000000000000c0ffee00'
/** Returns the balance of RECIPIENT. */
const BALANCE_CODE = `0x73${RECIPIENT.slice(2)}3160005260206000f3`
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935'

const balanceCall = [{ to: CONTRACT }, 'latest', { [CONTRACT]: { code: BALANCE_CODE } }]

describe('call workers', () => {
  it('answer concurrent calls as the main thread does, and see a block right after it is sealed', async () => {
    const node = await startNode({ args: ['--rpc-call-workers', '1', '--rpc-http-api', 'ETH,NET,WEB3,DEBUG'] })
    try {
      const key = node.config.accounts[0].privateKey as `0x${string}`
      const historyCall = [{ to: HISTORY, data: `0x${'00'.repeat(32)}` }, 'latest']
      const expected = await node.rpc('eth_call', historyCall)
      let workerAnswers = 0
      // Bounded: the worker opens the chain on first use, and the head's state is written within 1 s.
      for (let wave = 0; wave < 60 && workerAnswers === 0; wave++) {
        const answers = await Promise.all(Array.from({ length: 48 }, () => node.rpc('eth_call', historyCall)))
        expect(new Set(answers)).toEqual(new Set([expected]))
        const metrics = await node.rpc<{ rpc_calls: { worker_answers: number } }>('debug_metrics')
        workerAnswers = metrics.rpc_calls.worker_answers
        if (workerAnswers === 0) await Bun.sleep(50)
      }
      expect(workerAnswers).toBeGreaterThan(0)
      for (let nonce = 0; nonce < 3; nonce++) {
        const raw = await signTransfer(key, { to: RECIPIENT, value: 1000n, nonce })
        await node.rpc('eth_sendRawTransaction', [raw])
        // Automine: the block is sealed before the send is answered.
        const answers = await Promise.all(Array.from({ length: 32 }, () => node.rpc('eth_call', balanceCall)))
        expect(new Set(answers.map((a) => BigInt(a as string)))).toEqual(new Set([BigInt(1000 * (nonce + 1))]))
      }
      // A revert from a worker carries its code and data.
      const revert = await node.rpcRaw({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ to: CONTRACT }, 'latest', { [CONTRACT]: { code: '0x60206000fd' } }],
      })
      expect(revert.json.error).toEqual({ code: 3, message: 'Execution reverted', data: `0x${'00'.repeat(32)}` })
      expect(await stopWithSigterm(node)).toEqual({ code: 0, isInTime: true, isClean: true })
    } finally {
      await node.cleanup()
    }
  }, 60_000)

  it('leaves a data path that starts again after a kill -9 during calls', async () => {
    const first = await startNode({ args: ['--rpc-call-workers', '1'] })
    try {
      const key = first.config.accounts[0].privateKey as `0x${string}`
      await first.rpc('eth_sendRawTransaction', [await signTransfer(key, { to: RECIPIENT, value: 7n, nonce: 0 })])
      await Bun.sleep(2_200) // the flush timer (2 s): the workers then take the calls
      const calls = Promise.allSettled(Array.from({ length: 64 }, () => first.rpc('eth_call', balanceCall)))
      await Bun.sleep(20)
      await first.stop('SIGKILL')
      await calls
      const again = await startNode({ dataPath: first.dataPath, args: ['--rpc-call-workers', '1'] })
      try {
        expect(await again.rpc('eth_blockNumber')).toBe('0x1')
        expect(BigInt(await again.rpc<string>('eth_call', balanceCall))).toBe(7n)
      } finally {
        await again.cleanup()
      }
    } finally {
      await first.cleanup()
    }
  }, 60_000)
})
