import { after, every } from './eventLoop.ts'
import { describe, expect, it, sleep } from './testing.ts'

// Steps of 50 ms stand for the runtimes' 2^31 - 1 ms; the margins are wide for a loaded machine.
describe('timers of any length', () => {
  it('after() waits the whole delay in steps and fires once; cancel stops it between steps', async () => {
    const fired: number[] = []
    const start = Date.now()
    after(300, () => fired.push(Date.now() - start), { stepMs: 50 })
    const cancelled = after(300, () => fired.push(-1), { stepMs: 50 })
    await sleep(120)
    cancelled.cancel()
    expect(fired).toEqual([])
    await sleep(400)
    expect(fired.length).toBe(1)
    expect(fired[0]).toBeGreaterThanOrEqual(295)
  })

  it('every() past the step repeats at its own period until cancelled', async () => {
    let count = 0
    const timer = every(200, () => count++, { stepMs: 50 })
    await sleep(120)
    expect(count).toBe(0)
    await sleep(400)
    timer.cancel()
    const seen = count
    expect(seen).toBeGreaterThanOrEqual(1)
    expect(seen).toBeLessThanOrEqual(3)
    await sleep(450)
    expect(count).toBe(seen)
  })

  it('every() within the step is a plain interval', async () => {
    let count = 0
    const timer = every(15, () => count++)
    await sleep(150)
    timer.cancel()
    expect(count).toBeGreaterThanOrEqual(2)
  })
})
