import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Block } from '@ethereumjs/block'
import type { CallRequest } from '../evm/callService.ts'
import { RpcError } from '../jsonrpc/errors.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { answerCall, answerEstimate, type EthCallArgs } from '../rpc/eth/callMethods.ts'
import { afterAll, beforeAll, describe, expect, it, sleep } from '../runtime/testing.ts'
import { CallPool } from './callPool.ts'
import { databaseFile } from './dataPath.ts'
import { sealTransfers } from './testChain.ts'
import { type CallQuestion, WorkerChain } from './workerChain.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-call-pool-'))
const GAS_CAP = 0n
const CONTRACT = hexToBytes('0x00000000000000000000000000000000c0ffee00')
const HISTORY = hexToBytes('0x0000f90827f1c53a10cb7a02335b175320002935')

/** Code that returns the balance of the transfers' recipient (0x4242…). */
const BALANCE_OF_RECIPIENT = `0x73${'42'.repeat(20)}3160005260206000f3`
/** Code that reverts with the ABI encoding of Error("no"). */
const REVERT_NO = `0x7f08c379a000000000000000000000000000000000000000000000000000000000600052602060045260026024527f6e6f00000000000000000000000000000000000000000000000000000000000060445260646000fd`

type Setup = Awaited<ReturnType<typeof sealTransfers>>
let setup: Setup
let pool: CallPool

beforeAll(async () => {
  // With call workers the database opens in normal locking mode: the workers read it beside the chain.
  setup = await sealTransfers(join(dir, 'data'), 3, 1, { rpcCallWorkers: 1 })
  setup.chain.flushState()
  pool = new CallPool(
    setup.chain,
    { dbFile: databaseFile(join(dir, 'data')), rpcGasCap: GAS_CAP, rpcEvmTimeoutMs: 5000 },
    { size: 1, isAlwaysOffloaded: true },
  )
})

afterAll(() => {
  pool.close()
  setup.close()
  rmSync(dir, { recursive: true, force: true })
})

function withCode(code: string, req: CallRequest = {}): EthCallArgs {
  return [{ to: CONTRACT, ...req }, [[CONTRACT, { code: hexToBytes(code) }]], undefined]
}

/** The answer or the RPC error, in the dispatcher's terms. */
async function outcome(p: Promise<string>): Promise<unknown> {
  try {
    return { result: await p }
  } catch (e) {
    if (!(e instanceof RpcError)) throw e
    return { code: e.code, message: e.message, data: e.data }
  }
}

/** Runs the call through the pool and on this thread; expects the same outcome, returns it. */
async function both(block: Block, args: EthCallArgs, method: 'eth_call' | 'eth_estimateGas' = 'eth_call') {
  const here = () =>
    method === 'eth_call'
      ? answerCall(setup.chain, block, GAS_CAP, args)
      : answerEstimate(setup.chain, block, GAS_CAP, [args[0], args[1]])
  const viaPool = await outcome(pool.run(method, block, args, here))
  expect(viaPool).toEqual(await outcome(here()))
  return viaPool
}

/** Waits (bounded) until the worker has opened the chain and answered a call. */
async function workerAnswering(): Promise<void> {
  for (let i = 0; i < 200 && pool.counts.worker === 0; i++) {
    await both(setup.chain.head, withCode(BALANCE_OF_RECIPIENT))
    await sleep(25)
  }
  expect(pool.counts.worker).toBeGreaterThan(0)
}

describe('CallPool', () => {
  it('answers calls at the head in a worker, as the main thread does', async () => {
    await workerAnswering()
    const head = setup.chain.head
    const before = pool.counts.worker
    expect(await both(head, withCode(BALANCE_OF_RECIPIENT))).toEqual({
      result: `0x${(3000).toString(16).padStart(64, '0')}`,
    })
    expect(await both(head, [{ to: HISTORY, data: new Uint8Array(32) }, undefined, undefined])).toHaveProperty('result')
    expect(await both(head, withCode(REVERT_NO))).toMatchObject({ code: 3, message: 'Execution reverted: no' })
    expect(await both(head, withCode('0xfe'))).toHaveProperty('code')
    expect(await both(head, withCode(BALANCE_OF_RECIPIENT, { gas: 1000n }))).toHaveProperty('code')
    expect(await both(head, withCode(BALANCE_OF_RECIPIENT), 'eth_estimateGas')).toHaveProperty('result')
    expect(await both(head, withCode(REVERT_NO), 'eth_estimateGas')).toMatchObject({ code: 3 })
    expect(pool.counts.worker - before).toBe(7)
  }, 60_000)

  it('runs a call at an older block, or right after a block is sealed, on the main thread', async () => {
    await workerAnswering()
    const older = (await setup.chain.getBlockByNumber(1n))!
    const here = pool.counts.here
    expect(await both(older, withCode(BALANCE_OF_RECIPIENT))).toEqual({
      result: `0x${(1000).toString(16).padStart(64, '0')}`,
    })
    await setup.sealMore(1)
    expect(setup.chain.isStateWritten).toBe(false)
    const sealed = setup.chain.head
    expect(await both(sealed, withCode(BALANCE_OF_RECIPIENT))).toEqual({
      result: `0x${(4000).toString(16).padStart(64, '0')}`,
    })
    expect(pool.counts.here - here).toBe(2)
    // Once the block's state is written, the worker answers at it.
    setup.chain.flushState()
    const worker = pool.counts.worker
    expect(await both(sealed, withCode(BALANCE_OF_RECIPIENT))).toEqual({
      result: `0x${(4000).toString(16).padStart(64, '0')}`,
    })
    expect(pool.counts.worker - worker).toBe(1)
  }, 60_000)
})

function question(): CallQuestion {
  const head = setup.chain.head
  return {
    type: 'call',
    id: 1,
    method: 'eth_call',
    blockHash: head.hash(),
    stateRoot: setup.chain.postStateRoot(head),
    args: withCode(BALANCE_OF_RECIPIENT),
  }
}

const balance = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

describe('WorkerChain', () => {
  it('answers at the head the node names, and never from another state', async () => {
    setup.chain.flushState()
    const worker = await WorkerChain.open({
      dbFile: databaseFile(join(dir, 'data')),
      rpcGasCap: 0n,
      rpcEvmTimeoutMs: 5000,
    })
    try {
      const before = question()
      const blocks = Number(setup.chain.head.header.number)
      expect(await worker.answer(before)).toEqual({ type: 'answer', id: 1, result: balance(1000 * blocks) })
      // The next block's flat rows wait for the flush: until then the tables hold the old head's
      // state, so a question about the old head is answered from it and one about the new is stale.
      await setup.sealMore(1)
      expect(await worker.answer(before)).toEqual({ type: 'answer', id: 1, result: balance(1000 * blocks) })
      expect(await worker.answer(question())).toEqual({ type: 'answer', id: 1, isStale: true })
      setup.chain.flushState()
      expect(await worker.answer(before)).toEqual({ type: 'answer', id: 1, isStale: true })
      expect(await worker.answer(question())).toEqual({ type: 'answer', id: 1, result: balance(1000 * (blocks + 1)) })
      // A state root the flat tables do not hold (an edit the node has not committed) is stale too.
      const unknownRoot = { ...question(), stateRoot: new Uint8Array(32) }
      expect(await worker.answer(unknownRoot)).toEqual({ type: 'answer', id: 1, isStale: true })
    } finally {
      worker.db.close()
    }
  }, 60_000)

  it('answers a call while a long one runs, and ends the long one at the time limit', async () => {
    const init = { dbFile: databaseFile(join(dir, 'data')), rpcGasCap: 0n, rpcEvmTimeoutMs: 100 }
    const worker = await WorkerChain.open(init)
    try {
      let isLoopDone = false
      // JUMPDEST PUSH1 0 JUMP: loops until the gas or the time runs out.
      const loop = worker.answer({
        ...question(),
        id: 2,
        args: [{ to: CONTRACT }, [[CONTRACT, { code: hexToBytes('0x5b600056') }]], undefined],
      })
      void loop.then(() => {
        isLoopDone = true
      })
      const blocks = Number(setup.chain.head.header.number)
      expect(await worker.answer(question())).toEqual({ type: 'answer', id: 1, result: balance(1000 * blocks) })
      expect(isLoopDone).toBe(false)
      expect(await loop).toEqual({
        type: 'answer',
        id: 2,
        error: { code: -32000, message: 'execution aborted (timeout = 100ms)' },
      })
    } finally {
      worker.db.close()
    }
  }, 60_000)
})
