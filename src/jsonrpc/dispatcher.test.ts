import { describe, expect, it, sleep } from '../runtime/testing.ts'
import { p } from './codecs.ts'
import { defineMethod } from './defineMethod.ts'
import { bodyText, RpcDispatcher } from './dispatcher.ts'
import { JsonTextWriter } from './jsonText.ts'

const echo = defineMethod({
  name: 'test_echo',
  params: [p.quantity, p.bool.optional(false)],
  handler: (_c: unknown, [n, b]) => ({ n: n.toString(), b }),
})
const boom = defineMethod({
  name: 'test_boom',
  params: [],
  handler: () => {
    throw new Error('kaboom')
  },
})
const other = defineMethod({ name: 'other_one', params: [], handler: () => 1 })
/** Answers `[{"n":"0x…","d":"0x…"}]` as text, written without objects. */
const asText = defineMethod({
  name: 'test_text',
  params: [p.quantity],
  handler: (_c: unknown, [n]) => {
    const w = new JsonTextWriter()
    w.raw('[{"n":')
    w.quantity(n)
    w.raw(',"d":')
    w.hex(new Uint8Array([0, 1, 0xab, 0xff]))
    w.raw('}]')
    return w.take()
  },
})
const dispatcher = new RpcDispatcher<unknown>([
  { group: 'TEST', methods: [echo, boom, asText] },
  { group: 'OTHER', methods: [other] },
])
const opts = { enabledGroups: new Set(['TEST']), maxBatchSize: 2 }

async function call(body: unknown) {
  const { body: out } = await dispatcher.handleText(JSON.stringify(body), {}, opts)
  return out === undefined ? undefined : JSON.parse(bodyText(out))
}

describe('RpcDispatcher', () => {
  it('decodes parameters and fills optional ones', async () => {
    expect(await call({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: ['0x10'] })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { n: '16', b: false },
    })
  })

  it('names the argument that fails to decode', async () => {
    const r = await call({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: ['0x01'] })
    expect(r.error.code).toBe(-32602)
    expect(r.error.message).toContain('argument 0 (quantity)')
  })

  it('refuses too many or too few arguments', async () => {
    expect((await call({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: [] })).error.code).toBe(-32602)
    expect((await call({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: ['0x1', true, 3] })).error.code).toBe(
      -32602,
    )
  })

  it('answers -32604 for a method of a disabled group and -32601 for an unknown one', async () => {
    expect((await call({ jsonrpc: '2.0', id: 1, method: 'other_one' })).error.code).toBe(-32604)
    expect((await call({ jsonrpc: '2.0', id: 1, method: 'nope' })).error.code).toBe(-32601)
  })

  it('hides internal failures behind -32603', async () => {
    expect((await call({ jsonrpc: '2.0', id: 1, method: 'test_boom' })).error).toEqual({
      code: -32603,
      message: 'Internal error',
    })
  })

  it('sends nothing for a notification', async () => {
    expect(await call({ jsonrpc: '2.0', method: 'test_echo', params: ['0x1'] })).toBeUndefined()
  })

  it('answers a result given as text with the response written around it, as JSON.stringify would', async () => {
    const value = [{ n: '0x1f', d: '0x0001abff' }]
    for (const id of [7, 'abc', null, 'x'.repeat(200), 'é', 0]) {
      const { body } = await dispatcher.handleText(
        JSON.stringify({ jsonrpc: '2.0', id, method: 'test_text', params: ['0x1f'] }),
        {},
        opts,
      )
      expect(bodyText(body!)).toBe(JSON.stringify({ jsonrpc: '2.0', id, result: value }))
    }
    // In a batch, and beside other answers, it is its value.
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'test_text', params: ['0x0'] },
      { jsonrpc: '2.0', id: 2, method: 'test_echo', params: ['0x2'] },
    ]
    expect(await call(batch)).toEqual([
      { jsonrpc: '2.0', id: 1, result: [{ n: '0x0', d: '0x0001abff' }] },
      { jsonrpc: '2.0', id: 2, result: { n: '2', b: false } },
    ])
    expect(await call({ jsonrpc: '2.0', method: 'test_text', params: ['0x1'] })).toBeUndefined()
  })

  it('echoes an integer id past 2^53 with the digits it was sent with, as Besu does', async () => {
    const text = async (body: string) => bodyText((await dispatcher.handleText(body, {}, opts)).body!)
    const big = '12345678901234567890123'
    expect(await text(`{"jsonrpc":"2.0","id":${big},"method":"test_echo","params":["0x1"]}`)).toBe(
      `{"jsonrpc":"2.0","id":${big},"result":{"n":"1","b":false}}`,
    )
    // Written as text, as an error, in a batch beside a safe id; an id inside params is left alone.
    expect(await text(`{"jsonrpc":"2.0","id":9007199254740993,"method":"test_text","params":["0x1"]}`)).toBe(
      '{"jsonrpc":"2.0","id":9007199254740993,"result":[{"n":"0x1","d":"0x0001abff"}]}',
    )
    expect(await text(`{"jsonrpc":"2.0","id":${big},"method":"test_boom","params":[]}`)).toBe(
      `{"jsonrpc":"2.0","id":${big},"error":{"code":-32603,"message":"Internal error"}}`,
    )
    expect(
      await text(
        `[{"jsonrpc":"2.0","id":${big},"method":"test_echo","params":["0x2"]},{"jsonrpc":"2.0","id":5,"method":"test_echo","params":["0x3",{"id":${big}}]}]`,
      ),
    ).toBe(
      `[{"jsonrpc":"2.0","id":${big},"result":{"n":"2","b":false}},{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid argument 1 (bool): expected a boolean, got {\\"id\\":1.2345678901234568e+22}"}}]`,
    )
  })

  it('refuses an empty batch and one above the limit', async () => {
    expect((await call([])).error.code).toBe(-32600)
    const one = { jsonrpc: '2.0', id: 1, method: 'test_echo', params: ['0x1'] }
    expect((await call([one, one, one])).error.code).toBe(-32005)
  })

  it('refuses a method defined twice at construction', () => {
    expect(
      () =>
        new RpcDispatcher([
          { group: 'A', methods: [echo] },
          { group: 'B', methods: [echo] },
        ]),
    ).toThrow('defined twice')
  })

  it('runs a request or a batch through the request runner once, a few batch requests at a time', async () => {
    let inFlight = 0
    let maxInFlight = 0
    const slow = defineMethod({
      name: 'test_slow',
      params: [],
      handler: async () => {
        maxInFlight = Math.max(maxInFlight, ++inFlight)
        await sleep(1)
        inFlight--
        return 1
      },
    })
    let runs = 0
    const limited = new RpcDispatcher<unknown>([{ group: 'TEST', methods: [slow] }], undefined, (handle) => {
      runs++
      return handle()
    })
    const batch = Array.from({ length: 20 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'test_slow' }))
    const big = { enabledGroups: new Set(['TEST']), maxBatchSize: 100 }
    const { body } = await limited.handleText(JSON.stringify(batch), {}, big)
    expect(JSON.parse(bodyText(body!)).map((r: { id: number }) => r.id)).toEqual(batch.map((r) => r.id))
    expect(runs).toBe(1)
    expect(maxInFlight).toBe(8)
    await limited.handleText(JSON.stringify(batch[0]), {}, big)
    expect(runs).toBe(2)
  })

  it('tells the method hook each enabled method and runs the method once what it returned settles', async () => {
    const seen: string[] = []
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const hooked = new RpcDispatcher<unknown>(
      [
        { group: 'TEST', methods: [echo] },
        { group: 'OTHER', methods: [other] },
      ],
      undefined,
      undefined,
      (method) => {
        seen.push(`hook ${method}`)
        return method === 'test_echo' ? gate : undefined
      },
    )
    const answer = hooked
      .handleText(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: ['0x1'] }), {}, opts)
      .then(() => seen.push('answered'))
    await hooked.handleText(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'other_one' }), {}, opts)
    await sleep(5)
    expect(seen).toEqual(['hook test_echo'])
    release()
    await answer
    expect(seen).toEqual(['hook test_echo', 'answered'])
  })
})
