/** `basalt run`'s options that bound what one client can take, parsed as the executable parses them. */
import { describe, expect, it } from '../runtime/testing.ts'
import { runConfig } from './runArgs.test-helper.ts'

describe('--rpc-evm-timeout', () => {
  it('is 5 s by default and takes seconds, fractions and 0 (no limit)', () => {
    expect(runConfig([]).rpcEvmTimeoutMs).toBe(5000)
    expect(runConfig(['--rpc-evm-timeout', '0.25']).rpcEvmTimeoutMs).toBe(250)
    expect(runConfig(['--rpc-evm-timeout', '0']).rpcEvmTimeoutMs).toBe(0)
  })

  it('refuses what is not a number of seconds', () => {
    expect(() => runConfig(['--rpc-evm-timeout', '5s'])).toThrow(
      "Invalid value for option --rpc-evm-timeout: '5s' (expected a non-negative number of seconds)",
    )
    expect(() => runConfig(['--rpc-evm-timeout', '-1'])).toThrow('--rpc-evm-timeout')
  })
})

describe('--rpc-max-active-filters', () => {
  it("is Besu's 1000 by default and takes a positive count", () => {
    expect(runConfig([]).maxActiveFilters).toBe(1000)
    expect(runConfig(['--rpc-max-active-filters', '5']).maxActiveFilters).toBe(5)
    expect(() => runConfig(['--rpc-max-active-filters', '0'])).toThrow('--rpc-max-active-filters')
  })
})

describe('--tx-pool-price-bump', () => {
  it('is 10% by default, 0 when --min-gas-price is 0 and it is not given, as in Besu', () => {
    expect(runConfig([]).txPoolPriceBumpPercent).toBe(10)
    expect(runConfig(['--min-gas-price', '0']).txPoolPriceBumpPercent).toBe(0)
    expect(runConfig(['--min-gas-price', '0', '--tx-pool-price-bump', '25']).txPoolPriceBumpPercent).toBe(25)
    expect(runConfig(['--tx-pool-price-bump', '50']).txPoolPriceBumpPercent).toBe(50)
    expect(() => runConfig(['--tx-pool-price-bump', '-1'])).toThrow('--tx-pool-price-bump')
  })
})

describe('--rpc-call-workers', () => {
  it('defaults to none, and takes a count or 0 to turn them off', () => {
    expect(runConfig([]).rpcCallWorkers).toBe(0)
    expect(runConfig(['--rpc-call-workers', '0']).rpcCallWorkers).toBe(0)
    expect(runConfig(['--rpc-call-workers', '3']).rpcCallWorkers).toBe(3)
    expect(() => runConfig(['--rpc-call-workers', '-1'])).toThrow('--rpc-call-workers')
    expect(() => runConfig(['--rpc-call-workers', 'two'])).toThrow('--rpc-call-workers')
  })
})

describe('--rpc-http-max-request-content-length and --rpc-ws-max-frame-size', () => {
  it("are Besu's 5 MiB and 1 MiB by default and take a positive number of bytes", () => {
    expect(runConfig([]).http.maxRequestBytes).toBe(5 * 1024 * 1024)
    expect(runConfig([]).ws.maxFrameBytes).toBe(1024 * 1024)
    expect(runConfig(['--rpc-http-max-request-content-length', '100']).http.maxRequestBytes).toBe(100)
    expect(runConfig(['--rpc-ws-max-frame-size=4096']).ws.maxFrameBytes).toBe(4096)
    expect(() => runConfig(['--rpc-ws-max-frame-size=0'])).toThrow('--rpc-ws-max-frame-size')
    expect(() => runConfig(['--rpc-http-max-request-content-length=5MB'])).toThrow(
      '--rpc-http-max-request-content-length',
    )
  })
})

describe('--rpc-max-logs-range and --rpc-max-trace-filter-range', () => {
  it("are Besu's 5000 (none on the dev network) and 1000, and take 0 for none", () => {
    expect(runConfig([]).maxLogsRange).toBe(0n)
    expect(runConfig(['--genesis-file', 'g.json']).maxLogsRange).toBe(5000n)
    expect(runConfig(['--rpc-max-logs-range', '100']).maxLogsRange).toBe(100n)
    expect(runConfig([]).maxTraceFilterRange).toBe(1000n)
    expect(runConfig(['--rpc-max-trace-filter-range=0']).maxTraceFilterRange).toBe(0n)
    expect(() => runConfig(['--rpc-max-logs-range=-1'])).toThrow('--rpc-max-logs-range')
  })
})
