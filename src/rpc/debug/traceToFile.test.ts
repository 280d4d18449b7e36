import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { standardTraceBadBlockToFile, standardTraceBlockToFile } from './traceToFile.ts'

/** PUSH1 2, PUSH1 3, ADD, POP, STOP. */
const ADD_RUNTIME = '600260030150 00'.replace(' ', '')

let t: TracingChain
let ctx: RpcContext
let dir: string
let contract: string

beforeAll(async () => {
  t = await tracingChain()
  dir = mkdtempSync(join(tmpdir(), 'basalt-trace-files-'))
  ctx = rpcContext(t, dir)
  contract = await t.deploy(ADD_RUNTIME)
})
afterAll(() => {
  ctx.filters.stop()
  t.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('debug_standardTraceBlockToFile', () => {
  it('writes one EIP-3155 JSON-lines file per transaction under traces/ of the data path', async () => {
    const txHash = await t.send({ to: contract, gasLimit: 50_000n })
    const block = t.chain.head
    const files: string[] = await call(ctx, standardTraceBlockToFile, [bytesToHex(block.hash())])
    expect(files).toHaveLength(1)
    expect(dirname(files[0])).toBe(join(dir, 'traces'))
    expect(files[0]).toContain(`-0-${bytesToHex(txHash).slice(0, 10)}`)
    const lines = readFileSync(files[0], 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    // 50,000 gas less 21,000 intrinsic: PUSH1 (3), PUSH1 (3), ADD (3), POP (2), STOP (0).
    expect(lines.slice(0, 5)).toEqual([
      { pc: 0, op: 0x60, gas: '0x7148', gasCost: '0x3', memSize: 0, stack: [], depth: 1, refund: 0, opName: 'PUSH1' },
      {
        pc: 2,
        op: 0x60,
        gas: '0x7145',
        gasCost: '0x3',
        memSize: 0,
        stack: ['0x2'],
        depth: 1,
        refund: 0,
        opName: 'PUSH1',
      },
      {
        pc: 4,
        op: 0x01,
        gas: '0x7142',
        gasCost: '0x3',
        memSize: 0,
        stack: ['0x2', '0x3'],
        depth: 1,
        refund: 0,
        opName: 'ADD',
      },
      {
        pc: 5,
        op: 0x50,
        gas: '0x713f',
        gasCost: '0x2',
        memSize: 0,
        stack: ['0x5'],
        depth: 1,
        refund: 0,
        opName: 'POP',
      },
      { pc: 6, op: 0x00, gas: '0x713d', gasCost: '0x0', memSize: 0, stack: [], depth: 1, refund: 0, opName: 'STOP' },
    ])
    expect(lines[5]).toEqual({ output: '', gasUsed: '0x5213', pass: true })
  })

  it('writes only the transaction txHash names, and refuses one not in the block', async () => {
    const block = t.chain.head
    const txHash = bytesToHex(block.transactions[0].hash())
    const files = await call(ctx, standardTraceBlockToFile, [bytesToHex(block.hash()), { txHash }])
    expect(files).toHaveLength(1)
    await expect(
      call(ctx, standardTraceBlockToFile, [bytesToHex(block.hash()), { txHash: `0x${'11'.repeat(32)}` }]),
    ).rejects.toMatchObject({ code: -32000 })
  })

  it('refuses an unknown block', async () => {
    await expect(call(ctx, standardTraceBlockToFile, [`0x${'22'.repeat(32)}`])).rejects.toMatchObject({
      code: -32000,
    })
    await expect(call(ctx, standardTraceBadBlockToFile, [`0x${'22'.repeat(32)}`])).rejects.toMatchObject({
      code: -32000,
    })
  })
})

describe('debug_standardTraceBadBlockToFile', () => {
  it('traces a block from the bad-blocks table on its stored parent', async () => {
    const block = t.chain.head
    t.chain.store.writeBadBlock(block.hash(), block.serialize(), 'test: recorded as bad', Date.now())
    const files: string[] = await call(ctx, standardTraceBadBlockToFile, [bytesToHex(block.hash())])
    expect(files).toHaveLength(1)
    const last = readFileSync(files[0], 'utf8').trim().split('\n').at(-1)!
    expect(JSON.parse(last)).toEqual({ output: '', gasUsed: '0x5213', pass: true })
  })
})
