/**
 * Transaction validation through eth_sendRawTransaction: every refusal carries Besu's code, and the
 * node keeps serving afterwards. Signing happens client side with viem, so malformed fields reach us.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Hex, parseGwei } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { type StartedNode, signTransfer, startNode } from './harness.ts'

let mining: StartedNode
let holding: StartedNode

beforeAll(async () => {
  // One node mines at once; the other seals only every hour, so its pool keeps what it accepts.
  ;[mining, holding] = await Promise.all([
    startNode(),
    startNode({ args: ['--block-period', '3600', '--min-gas-price', '2000000000'] }),
  ])
})
afterAll(async () => {
  await Promise.all([mining?.cleanup(), holding?.cleanup()])
})

function keyOf(node: StartedNode, i: number): Hex {
  return node.config.accounts[i].privateKey as Hex
}

const signed = signTransfer

async function sendError(node: StartedNode, raw: Hex): Promise<{ code: number; message: string }> {
  const { json } = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] })
  expect(json.error).toBeDefined()
  return json.error
}

async function nonceOf(node: StartedNode, i: number, tag = 'latest'): Promise<number> {
  return Number(await node.rpc<string>('eth_getTransactionCount', [node.config.accounts[i].address, tag]))
}

describe('eth_sendRawTransaction validation', () => {
  it('refuses a nonce below the account nonce with -32001', async () => {
    const key = keyOf(mining, 4)
    await mining.rpc('eth_sendRawTransaction', [await signed(key, { nonce: 0 })])
    for (let i = 0; i < 100 && (await nonceOf(mining, 4)) === 0; i++) await Bun.sleep(10)
    const err = await sendError(mining, await signed(key, { nonce: 0, value: 2n }))
    expect(err.code).toBe(-32001)
  })

  it('refuses a gas limit below the intrinsic gas with -32003', async () => {
    expect((await sendError(mining, await signed(keyOf(mining, 5), { gas: 20_000n }))).code).toBe(-32003)
  })

  it('refuses an upfront cost above the balance with -32004', async () => {
    expect((await sendError(mining, await signed(generatePrivateKey(), {}))).code).toBe(-32004)
  })

  it('refuses a gas limit above the block gas limit with -32005', async () => {
    expect((await sendError(mining, await signed(keyOf(mining, 5), { gas: 100_000_000n }))).code).toBe(-32005)
  })

  it('refuses a gas price below --min-gas-price with -32009', async () => {
    const raw = await signed(keyOf(holding, 5), { maxFeePerGas: parseGwei('1.5'), maxPriorityFeePerGas: 0n })
    expect((await sendError(holding, raw)).code).toBe(-32009)
  })

  it('refuses another chain id with -32000 Wrong chainId', async () => {
    const err = await sendError(mining, await signed(keyOf(mining, 6), { chainId: 1 }))
    expect(err.code).toBe(-32000)
    expect(err.message).toContain('chainId')
  })

  it('refuses undecodable bytes with -32602', async () => {
    expect((await sendError(mining, '0x02deadbeef')).code).toBe(-32602)
  })

  it('refuses a transaction it already holds as a known transaction', async () => {
    const raw = await signed(keyOf(holding, 6), { nonce: 0 })
    await holding.rpc('eth_sendRawTransaction', [raw])
    const err = await sendError(holding, raw)
    expect(err).toMatchObject({ code: -32000, message: 'Known transaction' })
  })

  it('refuses a replacement without the price bump and accepts one with it', async () => {
    const key = keyOf(holding, 7)
    await holding.rpc('eth_sendRawTransaction', [await signed(key, { nonce: 0 })])
    const cheap = await signed(key, {
      nonce: 0,
      value: 2n,
      maxFeePerGas: parseGwei('3.1'),
      maxPriorityFeePerGas: parseGwei('1.05'),
    })
    expect(await sendError(holding, cheap)).toMatchObject({
      code: -32000,
      message: 'Replacement transaction underpriced',
    })
    const bumped = await signed(key, {
      nonce: 0,
      value: 3n,
      maxFeePerGas: parseGwei('3.3'),
      maxPriorityFeePerGas: parseGwei('1.1'),
    })
    const hash = await holding.rpc<string>('eth_sendRawTransaction', [bumped])
    const tx = await holding.rpc<{ value: string }>('eth_getTransactionByHash', [hash])
    expect(tx.value).toBe('0x3')
  })

  it('keeps a transaction behind a nonce gap queued and counts only the pending run', async () => {
    const key = keyOf(holding, 8)
    await holding.rpc('eth_sendRawTransaction', [await signed(key, { nonce: 0 })])
    await holding.rpc('eth_sendRawTransaction', [await signed(key, { nonce: 2 })])
    expect(await nonceOf(holding, 8, 'pending')).toBe(1)
    expect(await nonceOf(holding, 8, 'latest')).toBe(0)
  })

  it('keeps serving after refusals', async () => {
    expect(await mining.rpc('eth_chainId')).toBe('0x539')
  })
})
