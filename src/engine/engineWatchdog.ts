/**
 * Warns when the consensus client seems gone. Two rules, each warning at most once per 120 s:
 * - no Engine API call at all for 120 s (Besu's "Execution engine not called" warning);
 * - no engine_exchangeTransitionConfigurationV1 for 120 s while the client is expected to send it
 *   every 60 s (paris.md). Cancun deprecates the method and forbids warning about it (cancun.md), so
 *   this rule holds only while the head is before Cancun, and not once the client has listed its
 *   capabilities without the method (common.md#engine_exchangecapabilities).
 */
import type { Clock } from '../primitives/clock.ts'

/** How long without a call before warning; the consensus client sends one at least every 60 s. */
export const ENGINE_IDLE_WARN_MS = 120_000
/** How often the rules are checked, so that a warning comes at most this late. */
const CHECK_INTERVAL_MS = 5_000
const TRANSITION_METHOD = 'engine_exchangeTransitionConfigurationV1'

export class EngineWatchdog {
  private lastCallMs: number
  private lastTransitionMs: number
  private lastIdleWarnMs = Number.NEGATIVE_INFINITY
  private lastTransitionWarnMs = Number.NEGATIVE_INFINITY
  private isTransitionDropped = false
  private timer?: ReturnType<typeof setInterval>

  private readonly clock: Clock
  /** Whether the head is before Cancun, where the transition configuration is still exchanged. */
  private readonly isBeforeCancun: () => boolean
  private readonly warn: (message: string) => void

  constructor(clock: Clock, isBeforeCancun: () => boolean, warn: (message: string) => void) {
    this.clock = clock
    this.isBeforeCancun = isBeforeCancun
    this.warn = warn
    this.lastCallMs = clock.nowMs()
    this.lastTransitionMs = this.lastCallMs
  }

  /** Any Engine API call. */
  called(): void {
    this.lastCallMs = this.clock.nowMs()
  }

  transitionConfigurationExchanged(): void {
    this.lastTransitionMs = this.clock.nowMs()
  }

  /** The methods the consensus client listed in engine_exchangeCapabilities. */
  capabilitiesExchanged(methods: readonly string[]): void {
    this.isTransitionDropped = !methods.includes(TRANSITION_METHOD)
  }

  /** Applies both rules now. */
  check(): void {
    const now = this.clock.nowMs()
    const idleMs = now - this.lastCallMs
    if (idleMs >= ENGINE_IDLE_WARN_MS) {
      if (now - this.lastIdleWarnMs < ENGINE_IDLE_WARN_MS) return
      this.lastIdleWarnMs = now
      this.warn(
        `Execution engine not called in ${Math.floor(idleMs / 1000)} seconds, consensus client may not be connected`,
      )
      return
    }
    const sinceTransitionMs = now - this.lastTransitionMs
    if (sinceTransitionMs < ENGINE_IDLE_WARN_MS || this.isTransitionDropped || !this.isBeforeCancun()) return
    if (now - this.lastTransitionWarnMs < ENGINE_IDLE_WARN_MS) return
    this.lastTransitionWarnMs = now
    this.warn(
      `${TRANSITION_METHOD} not called in ${Math.floor(sinceTransitionMs / 1000)} seconds, consensus client may not be connected`,
    )
  }

  start(): void {
    this.timer ??= setInterval(() => this.check(), CHECK_INTERVAL_MS)
    this.timer.unref?.()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }
}
