import { bodyText, RpcDispatcher } from '../jsonrpc/dispatcher.ts'
import type { RpcContext, RpcServices } from '../rpc/context.ts'
import { chainMethods } from '../rpc/eth/chainMethods.ts'
import { netMethods, rpcModulesMethods, web3Methods } from '../rpc/netWeb3Methods.ts'
import { afterEach, describe, expect, it, sleep } from '../runtime/testing.ts'
import { RpcGate, type RunningListener, startRpcListener } from './rpcListener.ts'

const settings = { chainId: 1337n, networkId: 2018n, clientVersion: 'anvil/v1.0.0/basalt' }
const dispatcher = new RpcDispatcher<RpcContext>([
  { group: 'ETH', methods: chainMethods },
  { group: 'NET', methods: netMethods },
  { group: 'WEB3', methods: web3Methods },
  { group: 'RPC', methods: rpcModulesMethods },
])
const APIS = ['ETH', 'NET', 'WEB3', 'RPC']

function gateWithEarly(): RpcGate {
  const gate = new RpcGate()
  gate.early = settings
  return gate
}

/** What the dispatcher of a started node answers to `body`. */
async function dispatched(body: string, apis = APIS): Promise<string | undefined> {
  // A dev chain: its genesis names a chain id (a chain without one answers eth_chainId with null,
  // and the gate never answers early there).
  const chain = { common: {} }
  const ctx = { settings, apis, chain } as unknown as RpcContext
  const out = (await dispatcher.handleText(body, ctx, { enabledGroups: new Set(apis), maxBatchSize: 10 })).body
  return out === undefined ? undefined : bodyText(out)
}

let listener: RunningListener | undefined
afterEach(async () => {
  await listener?.stop()
  listener = undefined
})

describe('RpcGate', () => {
  it("answers the configuration's methods as the dispatcher does", async () => {
    const gate = gateWithEarly()
    const bodies = [
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":"a","method":"eth_chainId","params":[]}',
      '{"jsonrpc":"2.0","id":7,"method":"net_version","params":[]}',
      '{"method":"web3_clientVersion","id":0,"jsonrpc":"2.0"}',
      '{"jsonrpc":"2.0","id":3,"method":"rpc_modules"}',
    ]
    for (const body of bodies) expect(gate.earlyAnswer(body, APIS)).toBe(await dispatched(body))
    expect(gate.earlyAnswer(bodies[4], ['ETH', 'RPC'])).toBe(await dispatched(bodies[4], ['ETH', 'RPC']))
  })

  it('leaves everything else to the node: other methods, parameters, batches, disabled groups, bad JSON', () => {
    const gate = gateWithEarly()
    for (const body of [
      '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[1]}',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":{}}',
      '[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}]',
      '{"jsonrpc":"2.0","method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":null,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":1.5,"method":"eth_chainId"}',
      '{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"',
      '{"jsonrpc":"2.0","id":1,"method":"toString"}',
    ]) {
      expect(gate.earlyAnswer(body, APIS)).toBeUndefined()
    }
    expect(gate.earlyAnswer('{"jsonrpc":"2.0","id":1,"method":"net_version"}', ['ETH'])).toBeUndefined()
    const unknownChain = new RpcGate()
    unknownChain.early = { clientVersion: 'x' }
    expect(unknownChain.earlyAnswer('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', APIS)).toBeUndefined()
    expect(new RpcGate().earlyAnswer('{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"}', APIS)).toBeUndefined()
  })

  it('holds requests until the node opens the gate; readiness is DOWN until then', async () => {
    const gate = gateWithEarly()
    listener = await startRpcListener(gate, {
      host: '127.0.0.1',
      port: 0,
      apis: APIS,
      hostAllowlist: ['*'],
      corsOrigins: [],
      maxBatchSize: 10,
      isHttpServed: true,
    })
    const url = `http://127.0.0.1:${listener.port}`
    const post = (body: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text())
    expect(await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":"0x539"}',
    )
    expect((await fetch(`${url}/readiness`)).status).toBe(503)
    let answered: string | undefined
    const waiting = post('{"jsonrpc":"2.0","id":2,"method":"web3_sha3","params":["0x"]}').then((t) => (answered = t))
    await sleep(50)
    expect(answered).toBeUndefined()
    gate.open({ dispatcher, services: { settings } as unknown as RpcServices })
    await waiting
    expect(JSON.parse(answered ?? '')).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    })
    expect((await fetch(`${url}/readiness`)).status).toBe(200)
  })
})
