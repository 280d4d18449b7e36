import { STORE_RUNTIME, type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { PrestateTracer } from './prestateTracer.ts'

let t: TracingChain
let store: string
let storeTx: Uint8Array
const SLOT0 = `0x${'0'.repeat(64)}`

beforeAll(async () => {
  t = await tracingChain()
  store = await t.deploy(STORE_RUNTIME)
  storeTx = await t.send({ to: store })
})
afterAll(() => t.close())

describe('PrestateTracer', () => {
  it('lists touched accounts and slots with their values before the transaction', async () => {
    const pre = (await t.trace(storeTx, new PrestateTracer())) as Record<string, any>
    expect(Object.keys(pre).sort()).toEqual([t.sender, store, `0x${'0'.repeat(40)}`].sort())
    expect(pre[store].code).toBe(`0x${STORE_RUNTIME}`)
    expect(pre[store].nonce).toBe(1)
    expect(pre[store].storage).toEqual({ [SLOT0]: `0x${'0'.repeat(64)}` })
    expect(pre[t.sender].nonce).toBe(1)
  })

  it('shows only what changed in diff mode', async () => {
    const { pre, post } = (await t.trace(storeTx, new PrestateTracer({ diffMode: true }))) as { pre: any; post: any }
    expect(post[store]).toEqual({ storage: { [SLOT0]: `0x${'2a'.padStart(64, '0')}` } })
    expect(pre[store].storage).toBeUndefined()
    expect(post[t.sender].nonce).toBe(2)
    expect(BigInt(post[t.sender].balance)).toBeLessThan(BigInt(pre[t.sender].balance))
  })

  it('leaves out the created account from the pre-state of a deployment', async () => {
    const hash = await t.send({ data: new Uint8Array([0x60, 0x00, 0x60, 0x00, 0xf3]) })
    const pre = (await t.trace(hash, new PrestateTracer())) as Record<string, any>
    expect(Object.keys(pre)).toHaveLength(2)
    const { post } = (await t.trace(hash, new PrestateTracer({ diffMode: true }))) as { post: any }
    expect(Object.values(post).some((a: any) => a.nonce === 1 && a.balance === undefined)).toBe(true)
  })
})
