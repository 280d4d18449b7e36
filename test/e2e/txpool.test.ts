/**
 * Transaction validation through eth_sendRawTransaction: every refusal carries Besu's code, and the
 * node keeps serving afterwards. Signing happens client side with viem, so malformed fields reach us.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Hex, keccak256, parseGwei } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
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
    expect(err).toEqual({ code: -32001, message: 'Nonce too low' })
  })

  it('refuses a gas limit below the intrinsic gas with -32003', async () => {
    expect(await sendError(mining, await signed(keyOf(mining, 5), { gas: 20_000n }))).toEqual({
      code: -32003,
      message: 'Intrinsic gas exceeds gas limit',
    })
  })

  it('refuses an upfront cost above the balance with -32004', async () => {
    expect(await sendError(mining, await signed(generatePrivateKey(), {}))).toEqual({
      code: -32004,
      message: 'Upfront cost exceeds account balance',
    })
  })

  it('refuses a gas limit above the block gas limit with -32005', async () => {
    expect(await sendError(mining, await signed(keyOf(mining, 5), { gas: 100_000_000n }))).toEqual({
      code: -32005,
      message: 'Transaction gas limit exceeds block gas limit',
    })
  })

  it('refuses a gas limit within the block but above the EIP-7825 cap with -32005', async () => {
    const err = await sendError(mining, await signed(keyOf(mining, 5), { gas: 20_000_000n }))
    expect(err.code).toBe(-32005)
    expect(err.message).toStartWith('Transaction gas limit cap exceeded')
  })

  it('refuses a gas price below --min-gas-price with -32009', async () => {
    const raw = await signed(keyOf(holding, 5), { maxFeePerGas: parseGwei('1.5'), maxPriorityFeePerGas: 0n })
    expect(await sendError(holding, raw)).toEqual({
      code: -32009,
      message: 'Gas price below configured minimum gas price',
    })
  })

  it('refuses another chain id with -32000 Wrong chainId', async () => {
    const err = await sendError(mining, await signed(keyOf(mining, 6), { chainId: 1 }))
    expect(err).toEqual({ code: -32000, message: 'Wrong chainId' })
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
    const tx = await holding.rpc<{ value: string; raw: string; publicKey: string }>('eth_getTransactionByHash', [hash])
    expect(tx.value).toBe('0x3')
    // Besu's pending shape: the signed bytes and the sender's 64-byte public key.
    expect(tx.raw).toBe(bumped)
    expect(keccak256(`0x${tx.publicKey.slice(2)}`).slice(-40)).toBe(privateKeyToAddress(key).slice(2).toLowerCase())
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

describe('transaction types', () => {
  async function mined(hash: string): Promise<{ status: string; type: string; contractAddress: string | null }> {
    for (let i = 0; i < 200; i++) {
      const receipt = await mining.rpc<{ status: string; type: string; contractAddress: string | null } | null>(
        'eth_getTransactionReceipt',
        [hash],
      )
      if (receipt) return receipt
      await Bun.sleep(10)
    }
    throw new Error(`transaction ${hash} was not mined`)
  }

  it('accepts and mines legacy, EIP-2930 and EIP-1559 transactions', async () => {
    const key = keyOf(mining, 9)
    const common = { nonce: 0, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }
    const legacy = await signed(key, { ...common, type: 'legacy', gasPrice: parseGwei('3') })
    const accessList = await signed(key, {
      ...common,
      type: 'eip2930',
      nonce: 1,
      gasPrice: parseGwei('3'),
      accessList: [],
    })
    const dynamic = await signed(key, { nonce: 2 })
    const types = []
    for (const raw of [legacy, accessList, dynamic]) {
      const receipt = await mined(await mining.rpc<string>('eth_sendRawTransaction', [raw]))
      expect(receipt.status).toBe('0x1')
      types.push(receipt.type)
    }
    expect(types).toEqual(['0x0', '0x1', '0x2'])
  })

  it('accepts an EIP-7702 transaction and runs the delegated code for the account', async () => {
    // Runtime code returning 42; its creation code copies it out of a PUSH10.
    const creation = '0x69602a60005260206000f3600052600a6016f3'
    const deployer = privateKeyToAccount(keyOf(mining, 10))
    const deployRaw = await deployer.signTransaction({
      type: 'eip1559',
      chainId: 1337,
      nonce: 0,
      gas: 100_000n,
      data: creation,
      maxFeePerGas: parseGwei('3'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    const { contractAddress } = await mined(await mining.rpc<string>('eth_sendRawTransaction', [deployRaw]))
    expect(contractAddress).toBeString()
    const delegator = privateKeyToAccount(keyOf(mining, 11))
    const authorization = await delegator.signAuthorization({
      chainId: 1337,
      address: contractAddress as Hex,
      nonce: 0,
    })
    const raw = await signed(keyOf(mining, 12), {
      type: 'eip7702',
      to: delegator.address,
      value: 0n,
      gas: 100_000n,
      authorizationList: [authorization],
    })
    const receipt = await mined(await mining.rpc<string>('eth_sendRawTransaction', [raw]))
    expect([receipt.status, receipt.type]).toEqual(['0x1', '0x4'])
    expect(await mining.rpc('eth_getCode', [delegator.address, 'latest'])).toBe(`0xef0100${contractAddress?.slice(2)}`)
    const answer = await mining.rpc<string>('eth_call', [{ to: delegator.address }, 'latest'])
    expect(BigInt(answer)).toBe(42n)
    expect(await nonceOf(mining, 11)).toBe(1)
  })
})
