/**
 * Values the protocol cannot hold are bad input, not internal errors: amounts of 2^256 and more, a
 * gas x price product past 256 bits, a nonce of 2^64-1 or more, an empty EIP-7702 authorization
 * list and an unsigned raw transaction each get -32602, never -32603: Besu's text for the parameter
 * (`Invalid call params`), with the field and the reason in the node's debug log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type StartedNode, startNode, until } from './harness.ts'

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const TO = '0x000000000000000000000000000000000000bEEF'
const TWO_256 = `0x1${'0'.repeat(64)}`
const MAX_256 = `0x${'f'.repeat(64)}`
let node: StartedNode

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-ws-enabled=false', '--logging=DEBUG'] })
})
afterAll(() => node?.cleanup())

const CASES: [string, Record<string, unknown>, string][] = [
  ['value of 2^256', { value: TWO_256 }, 'value: number larger than 256 bits'],
  ['gasPrice of 2^256', { gasPrice: TWO_256 }, 'gasPrice: number larger than 256 bits'],
  ['maxFeePerGas of 2^256', { maxFeePerGas: TWO_256 }, 'maxFeePerGas: number larger than 256 bits'],
  ['maxPriorityFeePerGas of 2^256', { maxPriorityFeePerGas: TWO_256 }, 'maxPriorityFeePerGas: number larger'],
  ['gas x gasPrice past 2^256', { gas: '0x5208', gasPrice: MAX_256 }, 'gas * gasPrice is larger than 256 bits'],
  ['gas x maxFeePerGas past 2^256', { gas: '0x5208', maxFeePerGas: MAX_256 }, 'gas * gasPrice is larger'],
  ['nonce of 2^64-1', { nonce: '0xffffffffffffffff' }, 'nonce: must be below 2^64-1'],
  ['nonce of 2^64', { nonce: '0x10000000000000000' }, 'nonce: number larger than 64 bits'],
  ['an empty authorizationList', { authorizationList: [] }, 'authorizationList: an EIP-7702 transaction needs'],
  ['gas of 2^64', { gas: '0x10000000000000000' }, 'gas: number larger than 64 bits'],
]
const METHODS = ['eth_call', 'eth_estimateGas', 'eth_createAccessList']

describe('out-of-range call fields', () => {
  for (const method of METHODS) {
    it.each(CASES)(`${method}: %s is -32602`, async (_name, fields, message) => {
      const { json } = await node.rpcRaw({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: [{ from: FROM, to: TO, ...fields }, 'latest'],
      })
      expect(json.error).toEqual({ code: -32602, message: 'Invalid call params' })
      await until(
        'the debug line',
        async () => node.output(),
        (out) => out.includes(`reason="${message}`),
        5_000,
      )
    })
  }

  it('refuses a raw transaction with r = s = 0 as undecodable (-32602), and keeps serving', async () => {
    // A type-2 transfer on chain 1337 whose yParity, r and s are all 0.
    const raw = '0x02eb8205398201f4018502540be4008252089470997970c51812dc3a010c7d01b50e0d17dc79c80180c0808080'
    const { json } = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] })
    expect(json.error).toEqual({ code: -32602, message: 'Invalid transaction params (missing or incorrect)' })
    const reason = 'reason="could not decode transaction: transaction is not signed"'
    await until(
      'the debug line',
      async () => node.output(),
      (out) => out.includes(reason),
      5_000,
    )
    expect(node.output()).not.toContain('Cannot call hash method')
    expect(await node.rpc('eth_blockNumber')).toBe('0x0')
  })
})
