import type { Chain } from '../chain/chain.ts'
import { openChain } from '../node/node.ts'
import { bytesToBigint, hexToBytes } from '../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../runtime/testing.ts'
import { call } from './callService.ts'
import {
  checkExecutionDeadline,
  ExecutionTimeoutError,
  excludedFromDeadline,
  withExecutionDeadline,
} from './executionDeadline.ts'
import { estimateGas } from './gasEstimator.ts'
import type { StateOverrides } from './stateOverrides.ts'

let chain: Chain
let close: () => void
beforeAll(async () => {
  ;({ chain, close } = await openChain({ dataPath: ':memory:' }))
})
afterAll(() => close())

const CONTRACT = hexToBytes('0x00000000000000000000000000000000c0ffee02')
/**
 * JUMPDEST, KECCAK256 of 32 bytes, POP, PUSH1 0, JUMP: loops until the gas runs out, about a second
 * at the gas cap (a plain JUMPDEST, PUSH1 0, JUMP loop can end in less than the 250 ms limit below).
 */
const LOOP = '0x5b602060002050600056'
/** Counts down from 300 in a loop, then returns 42. */
const COUNTED_LOOP = '0x61012c5b6001900380600357602a60005260206000f3'
const code = (hex: string): StateOverrides => [[CONTRACT, { code: hexToBytes(hex) }]]

/** A clock that moves 1 ms each time it is read. */
function steppingClock(): () => number {
  let t = 0
  return () => t++
}

describe('withExecutionDeadline', () => {
  it('aborts a call that runs past the limit', async () => {
    const run = withExecutionDeadline(
      40,
      () => call(chain, chain.head, { to: CONTRACT }, { gasCap: 0n, stateOverrides: code(LOOP) }),
      steppingClock(),
    )
    const e = await run.then(
      () => undefined,
      (err) => err,
    )
    expect(e).toBeInstanceOf(ExecutionTimeoutError)
    expect((e as Error).message).toBe('execution aborted (timeout = 40ms)')
  })

  it('aborts an estimate, whose runs share the limit', async () => {
    const run = withExecutionDeadline(
      1500,
      () => estimateGas(chain, chain.head, { to: CONTRACT }, { gasCap: 0n, stateOverrides: code(LOOP) }),
      steppingClock(),
    )
    await expect(run).rejects.toThrow('execution aborted (timeout = 1.5s)')
  })

  it('lets timers run while a long call runs', async () => {
    // The subject is that the call yields to the event loop: the timer must fire while the call is
    // still running. How soon it fires depends on the machine's load, so that is not bounded here.
    const startMs = performance.now()
    let running = true
    let firedWhileRunning = false
    setTimeout(() => {
      firedWhileRunning = running
    }, 5)
    const run = withExecutionDeadline(250, () =>
      call(chain, chain.head, { to: CONTRACT }, { gasCap: 0n, stateOverrides: code(LOOP) }),
    ).finally(() => {
      running = false
    })
    await expect(run).rejects.toBeInstanceOf(ExecutionTimeoutError)
    const endMs = performance.now() - startMs
    expect(firedWhileRunning).toBe(true)
    expect(endMs).toBeGreaterThanOrEqual(250)
    expect(endMs).toBeLessThan(1500)
  })

  it('leaves a call within the limit as it was', async () => {
    const r = await withExecutionDeadline(
      1000,
      () => call(chain, chain.head, { to: CONTRACT }, { gasCap: 0n, stateOverrides: code(COUNTED_LOOP) }),
      steppingClock(),
    )
    expect(bytesToBigint(r.returnData)).toBe(42n)
  })

  it('runs a call without a deadline in scope to its end', async () => {
    const r = await call(chain, chain.head, { to: CONTRACT, gas: 100_000n }, { gasCap: 0n, stateOverrides: code(LOOP) })
    expect(r.exceptionError).toBe('out of gas')
  })

  it('does not count a wait excluded from the deadline', async () => {
    const clock = steppingClock()
    const r = await withExecutionDeadline(
      5,
      async () => {
        await excludedFromDeadline(async () => {
          for (let i = 0; i < 100; i++) clock()
        })
        checkExecutionDeadline()
        return 'in time'
      },
      clock,
    )
    expect(r).toBe('in time')
    const late = withExecutionDeadline(
      5,
      async () => {
        for (let i = 0; i < 100; i++) clock()
        checkExecutionDeadline()
      },
      clock,
    )
    await expect(late).rejects.toBeInstanceOf(ExecutionTimeoutError)
  })
})
