/**
 * Seeded fuzzing of the JSON-RPC surface over HTTP and WebSocket: thousands of generated malformed
 * requests (broken JSON, bad envelopes, unknown methods, every enabled method with garbage
 * parameters, batches of them). Every answer must be a JSON-RPC error of the class the input calls
 * for, never -32603, and the chain must be untouched afterwards. FUZZ_SEED replays another run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { methodGroups } from '../../src/rpc/methodGroups.ts'
import { seededRandom } from '../../src/runtime/testing.ts'
import { type StartedNode, startNode } from './harness.ts'

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed)
const HTTP_REQUESTS = 2500
const WS_REQUESTS = 1500
const GROUPS = ['ETH', 'NET', 'WEB3', 'DEBUG', 'TRACE', 'TXPOOL']
/**
 * Codes an input mistake may get: invalid params, Besu's validation family, a revert, and Besu's
 * `Unknown block` (-39001: `debug_setHead` to a number past the head).
 */
const PARAM_ERROR_CODES = new Set([-32602, 3, -39001, ...Array.from({ length: 11 }, (_, i) => -32000 - i)])
/**
 * Codes some methods may also answer, as Besu does: subscriptions exist
 * only over WebSocket (-32601 over HTTP) and an unparsable subscription request is -32600 there;
 * eth_sendTransaction is -32604 while the dev accounts are locked.
 */
const METHOD_CODES: Record<string, { http: number[]; ws: number[] }> = {
  eth_subscribe: { http: [-32601], ws: [-32600] },
  eth_unsubscribe: { http: [-32601], ws: [-32600, -32602] },
  eth_sendTransaction: { http: [-32604], ws: [-32604] },
  eth_sendTransactionSync: { http: [-32604], ws: [-32604] },
}

let node: StartedNode
let before: Awaited<ReturnType<typeof snapshot>>

type Expect = 'parse' | 'request' | 'method' | 'params'
interface Case {
  body: string
  expect: Expect
  method?: string
}

const ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const CALL = { from: ADDRESS, to: `0x${'be'.repeat(20)}`, data: '0x', value: '0x1' }
/** Valid parameters of common methods: one position (or one field of it) is spoiled per case. */
const VALID: Record<string, unknown[]> = {
  eth_getBalance: [ADDRESS, 'latest'],
  eth_getStorageAt: [ADDRESS, '0x0', 'latest'],
  eth_getTransactionCount: [ADDRESS, 'latest'],
  eth_getBlockByNumber: ['0x0', false],
  eth_getBlockByHash: [`0x${'22'.repeat(32)}`, true],
  eth_call: [CALL, 'latest'],
  eth_estimateGas: [CALL, 'latest'],
  eth_createAccessList: [CALL, 'latest'],
  eth_simulateV1: [{ blockStateCalls: [{ calls: [CALL] }] }, 'latest'],
  eth_getLogs: [{ fromBlock: '0x0', toBlock: 'latest', address: ADDRESS, topics: [] }],
  eth_newFilter: [{ fromBlock: 'latest', address: [ADDRESS] }],
  eth_feeHistory: ['0x2', 'latest', [25, 75]],
  eth_getProof: [ADDRESS, [`0x${'00'.repeat(32)}`], 'latest'],
  debug_traceCall: [CALL, 'latest', { tracer: 'callTracer' }],
  trace_call: [CALL, ['trace'], 'latest'],
  trace_filter: [{ fromBlock: '0x0', toBlock: 'latest', count: 1 }],
}

const METHODS = methodGroups()
  .filter((g) => GROUPS.includes(g.group))
  .flatMap((g) => g.methods.map((m) => m.name))

function generator(seed: number, methods: string[] = METHODS, valid: Record<string, unknown[]> = VALID) {
  const rnd = seededRandom(seed)
  const int = (n: number) => Math.floor(rnd() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]
  const hex = (bytes: number) =>
    `0x${Array.from({ length: bytes }, () => int(256).toString(16).padStart(2, '0')).join('')}`
  const badValue = (depth = 0): unknown => {
    const simple = [
      -1,
      1.5,
      2 ** 53,
      '',
      '0x',
      '0xzz',
      '0X11',
      ' 0x1',
      '0x0001',
      `0x1${'0'.repeat(64)}`,
      `0x${'f'.repeat(65)}`,
      'latest ',
      'pending!',
      'x'.repeat(int(3000)),
      hex(int(40) + 1).slice(0, -1),
      true,
      false,
    ]
    const r = int(10)
    if (depth < 4 && r === 0) return Array.from({ length: int(4) }, () => badValue(depth + 1))
    if (depth < 4 && r === 1) {
      const keys = [
        'from',
        'to',
        'gas',
        'value',
        'data',
        'input',
        'blockHash',
        'address',
        'topics',
        'fromBlock',
        'nonce',
      ]
      return Object.fromEntries(Array.from({ length: int(4) + 1 }, () => [pick(keys), badValue(depth + 1)]))
    }
    return pick(simple)
  }
  const request = (method: unknown, params: unknown, id: unknown = int(1e6)) =>
    JSON.stringify({ jsonrpc: '2.0', id, method, params })
  const badParams = (): Case => {
    const method = pick(methods)
    return {
      body: request(
        method,
        Array.from({ length: int(4) + 1 }, () => badValue()),
      ),
      expect: 'params',
      method,
    }
  }
  const spoiled = (): Case => {
    const method = pick(Object.keys(valid))
    const params = structuredClone(valid[method])
    const i = int(params.length)
    const target = params[i]
    if (target && typeof target === 'object' && !Array.isArray(target) && int(2) === 0) {
      const fields = target as Record<string, unknown>
      fields[pick(Object.keys(fields))] = badValue()
    } else params[i] = badValue()
    return { body: request(method, params), expect: 'params', method }
  }
  const cases: (() => Case)[] = [
    spoiled,
    spoiled,
    () => {
      const valid = request(pick(methods), [badValue()])
      const cut = valid.slice(0, int(valid.length - 1) + 1)
      return {
        body: pick([cut, `${valid}}`, valid.replace(/"/g, "'"), `{${hex(8)}`, '{"jsonrpc":"2.0",,}']),
        expect: 'parse',
      }
    },
    () => {
      const bodies = [
        '1',
        '"eth_blockNumber"',
        'null',
        '[]',
        JSON.stringify({ jsonrpc: '2.0', id: 1 }),
        JSON.stringify({ jsonrpc: '1.0', id: 1, method: pick(methods), params: [] }),
        JSON.stringify({ id: 1, method: pick(methods), params: [] }),
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: int(100), params: [] }),
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: pick(methods), params: pick(['x', 7, true]) }),
        JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: pick(methods), params: [] }),
      ]
      return { body: pick(bodies), expect: 'request' }
    },
    () => {
      const name = pick([`${pick(methods)}x`, `eth_${hex(3).slice(2)}`, 'ETH_BLOCKNUMBER', ' eth_chainId', 'eth', '_'])
      return { body: request(name, []), expect: 'method' }
    },
    badParams,
    badParams,
  ]
  return { next: () => pick(cases)(), int }
}

type Answer = { error?: { code?: unknown; message?: unknown }; result?: unknown }

/** Checks one response object against what its request called for; returns a complaint or ''. */
function complaint(c: Case, res: Answer, transport: 'http' | 'ws'): string {
  const expect = c.expect
  if (!res || typeof res !== 'object') return 'no response object'
  if (!res.error) return expect === 'params' ? '' : `a result for a ${expect} error`
  const { code, message } = res.error
  if (typeof code !== 'number' || typeof message !== 'string') return 'an error without a numeric code and a message'
  if (code === -32603) return '-32603'
  const wanted = { parse: [-32700], request: [-32600], method: [-32601] }
  if (expect !== 'params') return wanted[expect].includes(code) ? '' : `code ${code} for a ${expect} error`
  const special = c.method === undefined ? undefined : METHOD_CODES[c.method]?.[transport]
  return PARAM_ERROR_CODES.has(code) || special?.includes(code) ? '' : `code ${code} for bad parameters`
}

/**
 * Sends `count` generated cases over HTTP (one in eight a batch of 2 to 6) within 30 s and checks
 * every answer; returns how many were sent and what was wrong.
 */
async function fuzzOverHttp(
  url: string,
  gen: ReturnType<typeof generator>,
  count: number,
): Promise<{ sent: number; problems: string[] }> {
  const problems: string[] = []
  const deadline = Date.now() + 30_000
  let sent = 0
  while (sent < count && Date.now() < deadline) {
    const batch = gen.int(8) === 0 ? Array.from({ length: gen.int(5) + 2 }, () => gen.next()) : [gen.next()]
    const isBatch = batch.length > 1
    const body = isBatch ? `[${batch.map((c) => c.body).join(',')}]` : batch[0].body
    sent += batch.length
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      problems.push(`non-JSON answer (HTTP ${res.status}) to ${body.slice(0, 120)}`)
      continue
    }
    // A batch with one unparsable member is itself unparsable: one -32700 answers it.
    const isParseError = batch.some((c) => c.expect === 'parse')
    const answers = isBatch && !isParseError ? (json as unknown[]) : [json]
    const expects: Case[] = isParseError ? [{ body, expect: 'parse' }] : batch
    if (!Array.isArray(answers) || answers.length !== expects.length) {
      problems.push(`${expects.length} answers expected to ${body.slice(0, 120)}, got ${text.slice(0, 120)}`)
      continue
    }
    answers.forEach((a, i) => {
      const why = complaint(expects[i], a as Answer, 'http')
      if (why) problems.push(`${why}: ${body.slice(0, 160)} -> ${JSON.stringify(a).slice(0, 160)}`)
    })
  }
  return { sent, problems }
}

async function snapshot() {
  const head = await node.rpc<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false])
  const balance = await node.rpc('eth_getBalance', [node.config.accounts[0].address, 'latest'])
  return { head: [head.number, head.hash], balance }
}

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-http-api', GROUPS.join(','), '--rpc-ws-api', GROUPS.join(',')] })
  before = await snapshot()
})
afterAll(() => node?.cleanup())

describe(`fuzzing the JSON-RPC surface (seed ${SEED})`, () => {
  it(`answers ${HTTP_REQUESTS} malformed HTTP requests and batches with the right error class`, async () => {
    const { sent, problems } = await fuzzOverHttp(node.url, generator(SEED), HTTP_REQUESTS)
    expect(sent).toBeGreaterThanOrEqual(HTTP_REQUESTS)
    expect(problems.slice(0, 10)).toEqual([])
  }, 40_000)

  it(`answers ${WS_REQUESTS} malformed WebSocket messages with the right error class`, async () => {
    const gen = generator(SEED + 1)
    const ws = new WebSocket(node.wsUrl)
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve()
      ws.onerror = () => reject(new Error('websocket error'))
    })
    const problems: string[] = []
    const deadline = Date.now() + 20_000
    let pending: ((data: string) => void) | undefined
    ws.onmessage = (e) => pending?.(String(e.data))
    for (let i = 0; i < WS_REQUESTS && Date.now() < deadline; i++) {
      const c = gen.next()
      const answer = await new Promise<string | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 5_000)
        pending = (data) => {
          clearTimeout(timer)
          resolve(data)
        }
        ws.send(c.body)
      })
      if (answer === undefined) {
        problems.push(`no answer to ${c.body.slice(0, 120)}`)
        break
      }
      const why = complaint(c, JSON.parse(answer), 'ws')
      if (why) problems.push(`${why}: ${c.body.slice(0, 160)} -> ${answer.slice(0, 160)}`)
    }
    ws.close()
    expect(problems.slice(0, 10)).toEqual([])
  }, 40_000)

  it('leaves the head and a balance as they were, and logs no internal error', async () => {
    expect(await snapshot()).toEqual(before)
    expect(node.output()).not.toContain('method failed')
  })
})

/**
 * The dev chain's tools and the other groups a dev chain serves. They change the chain by design (a
 * garbage value can be a valid block count or balance), so what must hold afterwards is that the
 * node still seals and logged no internal error.
 */
const TOOL_GROUPS = ['EVM', 'HARDHAT', 'ANVIL', 'ADMIN', 'TESTING', 'OTS']
const TOOL_METHODS = methodGroups()
  .filter((g) => TOOL_GROUPS.includes(g.group))
  .flatMap((g) => g.methods.map((m) => m.name))
const TOOL_REQUESTS = 2000
/** Valid parameters of the tools that take numbers and addresses; one position is spoiled per case. */
const TOOL_VALID: Record<string, unknown[]> = {
  evm_mine: [{ timestamp: '0x7fffffff', blocks: '0x2' }],
  hardhat_mine: ['0x2', '0x1'],
  evm_setNextBlockTimestamp: ['0x7fffffff'],
  evm_increaseTime: ['0x10'],
  anvil_setBlockTimestampInterval: ['0x5'],
  hardhat_setBalance: [ADDRESS, '0x1'],
  anvil_setStorageAt: [ADDRESS, '0x0', '0x1'],
  hardhat_setCode: [ADDRESS, '0x00'],
  anvil_setNonce: [ADDRESS, '0x5'],
  anvil_setNextBlockBaseFeePerGas: ['0x7'],
  anvil_setBlockGasLimit: ['0x1c9c380'],
}

describe(`fuzzing the dev tools (seed ${SEED})`, () => {
  let tools: StartedNode

  beforeAll(async () => {
    const groups = ['ETH', ...TOOL_GROUPS].join(',')
    tools = await startNode({ args: ['--rpc-http-api', groups, '--rpc-ws-enabled=false'] })
  })
  afterAll(() => tools?.cleanup())

  it(`answers ${TOOL_REQUESTS} malformed requests to ${TOOL_GROUPS.join(', ')} without an internal error`, async () => {
    const gen = generator(SEED + 2, TOOL_METHODS, TOOL_VALID)
    const { sent, problems } = await fuzzOverHttp(tools.url, gen, TOOL_REQUESTS)
    expect(sent).toBeGreaterThanOrEqual(TOOL_REQUESTS)
    expect(problems.slice(0, 10)).toEqual([])
  }, 60_000)

  it('still seals a block afterwards, and logged no internal error', async () => {
    const before = BigInt(await tools.rpc<string>('eth_blockNumber'))
    expect(await tools.rpc('evm_mine')).toBe('0x0')
    expect(BigInt(await tools.rpc<string>('eth_blockNumber'))).toBeGreaterThan(before)
    expect(tools.output()).not.toContain('method failed')
  })
})
