import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { LogBloomCache } from '../../chain/logBloomCache.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { generateLogBloomCache, logsRemoveCache, logsRepairCache } from './logCacheMethods.ts'

let t: TracingChain
let ctx: RpcContext
let dir: string
let cache: LogBloomCache

beforeAll(async () => {
  t = await tracingChain()
  for (let i = 0; i < 9; i++) await t.send({ to: '0x000000000000000000000000000000000000beef' })
  dir = mkdtempSync(join(tmpdir(), 'basalt-bloom-rpc-'))
  cache = new LogBloomCache(t.chain, dir, 4)
  ctx = { ...rpcContext(t), logBloomCache: cache }
})
afterAll(() => {
  ctx.filters.stop()
  t.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('admin_generateLogBloomCache', () => {
  it('refuses a call without arguments, as Besu (stop -1 without a start), and starts nothing', async () => {
    expect(await call(ctx, generateLogBloomCache, [])).toMatchObject({
      startBlock: '0x0',
      endBlock: '0x0',
      currentBlock: '0x0',
      indexing: false,
      requestAccepted: false,
    })
    // A start of latest is "no end" too, so nothing lies below the stop.
    expect(await call(ctx, generateLogBloomCache, ['latest'])).toMatchObject({ requestAccepted: false })
    expect(await call(ctx, generateLogBloomCache, ['0x3', '0x3'])).toMatchObject({ requestAccepted: false })
    expect([0, 1].map((s) => existsSync(cache.segmentFile(s)))).toEqual([false, false])
  })

  it('answers the indexing status and writes the complete segments', async () => {
    expect(await call(ctx, generateLogBloomCache, ['0x1', 'latest'])).toEqual({
      startBlock: '0x1',
      endBlock: 'latest',
      currentBlock: '0x0',
      indexing: true,
      requestAccepted: true,
    })
    const busy = await call(ctx, generateLogBloomCache, [])
    expect(busy).toMatchObject({ indexing: true, requestAccepted: false })
    await cache.idle()
    expect([0, 1, 2].map((s) => existsSync(cache.segmentFile(s)))).toEqual([true, true, false])
    expect(await call(ctx, generateLogBloomCache, ['0x0', '0x3'])).toMatchObject({
      endBlock: '0x3',
      requestAccepted: true,
    })
    await cache.idle()
  })
})

describe('admin_logsRemoveCache', () => {
  it('removes the segments of a range and refuses a reversed or unknown one', async () => {
    expect(await call(ctx, logsRemoveCache, ['0x4', '0x7'])).toEqual({ Status: 'Cache Removed' })
    expect(existsSync(cache.segmentFile(1))).toBe(false)
    expect(existsSync(cache.segmentFile(0))).toBe(true)
    await expect(call(ctx, logsRemoveCache, ['0x5', '0x2'])).rejects.toMatchObject({ code: -32602 })
    await expect(call(ctx, logsRemoveCache, ['0x0', '0x99'])).rejects.toMatchObject({ code: -32000 })
  })
})

describe('admin_logsRepairCache', () => {
  it('rewrites the segments below the head, or says it is already running', async () => {
    expect(await call(ctx, logsRepairCache)).toEqual({ Status: 'Started' })
    expect(await call(ctx, logsRepairCache, ['0x8'])).toEqual({ Status: 'Already running' })
    await cache.idle()
    expect(existsSync(cache.segmentFile(1))).toBe(true)
    await expect(call(ctx, logsRepairCache, ['0x99'])).rejects.toMatchObject({ code: -32000 })
  })
})
