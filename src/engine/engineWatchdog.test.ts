import { manualClock } from '../primitives/clock.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { ENGINE_IDLE_WARN_MS, EngineWatchdog } from './engineWatchdog.ts'

function watchdog(isBeforeCancun = true) {
  const clock = manualClock(1_700_000_000_000)
  const warnings: string[] = []
  const dog = new EngineWatchdog(
    clock,
    () => isBeforeCancun,
    (m) => warnings.push(m),
  )
  return { clock, warnings, dog }
}

describe('EngineWatchdog', () => {
  it('warns once per 120 s while no engine method is called at all', () => {
    const { clock, warnings, dog } = watchdog()
    clock.advance(ENGINE_IDLE_WARN_MS - 1)
    dog.check()
    expect(warnings).toEqual([])
    clock.advance(1)
    dog.check()
    clock.advance(5_000)
    dog.check()
    expect(warnings).toEqual(['Execution engine not called in 120 seconds, consensus client may not be connected'])
    clock.advance(ENGINE_IDLE_WARN_MS)
    dog.check()
    expect(warnings[1]).toBe('Execution engine not called in 245 seconds, consensus client may not be connected')
  })

  it('warns before Cancun when engine_exchangeTransitionConfigurationV1 stops while other calls go on', () => {
    const { clock, warnings, dog } = watchdog()
    for (let s = 0; s < 110; s += 10) {
      clock.advance(10_000)
      dog.called()
      if (s === 50) dog.transitionConfigurationExchanged()
      dog.check()
    }
    expect(warnings).toEqual([])
    for (let s = 0; s < 80; s += 10) {
      clock.advance(10_000)
      dog.called()
      dog.check()
    }
    expect(warnings).toEqual([
      'engine_exchangeTransitionConfigurationV1 not called in 120 seconds, consensus client may not be connected',
    ])
    dog.transitionConfigurationExchanged()
    clock.advance(60_000)
    dog.called()
    dog.check()
    expect(warnings).toHaveLength(1)
  })

  it('stays quiet about the transition configuration from Cancun on, or once the client dropped the method', () => {
    const afterCancun = watchdog(false)
    afterCancun.clock.advance(ENGINE_IDLE_WARN_MS * 2)
    afterCancun.dog.called()
    afterCancun.dog.check()
    expect(afterCancun.warnings).toEqual([])

    const modern = watchdog(true)
    modern.dog.capabilitiesExchanged(['engine_newPayloadV2', 'engine_forkchoiceUpdatedV2'])
    modern.clock.advance(ENGINE_IDLE_WARN_MS * 2)
    modern.dog.called()
    modern.dog.check()
    expect(modern.warnings).toEqual([])
    modern.dog.capabilitiesExchanged(['engine_exchangeTransitionConfigurationV1'])
    modern.dog.check()
    expect(modern.warnings).toHaveLength(1)
  })
})
