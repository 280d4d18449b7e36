/**
 * Anvil's head moves and pool controls on the compiled binary, each checked by its effect:
 * `anvil_rollback`, `anvil_reorg`, `evm_mine_detailed` / `anvil_mine_detailed`,
 * `anvil_removePoolTransactions`, `anvil_setBlockGasLimit`, `anvil_getIntervalMining`,
 * `anvil_getGenesisTime`, `evm_setAccountNonce` and `anvil_setERC20Allowance`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { compileContract } from './contracts/compile.ts'
import { type StartedNode, signTransfer, startNode } from './harness.ts'

const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const DEV1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const KEY1 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const TARGET = '0x000000000000000000000000000000000000c0de'
const APIS = 'ETH,NET,WEB3,EVM,ANVIL,TXPOOL,TRACE'

interface Block {
  number: string
  hash: string
  parentHash: string
  timestamp: string
  gasLimit: string
  transactions: { hash: string; from: string; value: string; output?: string }[]
}

let node: StartedNode

const blockNumber = async () => Number(await node.rpc<string>('eth_blockNumber'))
const block = (n: number | string, isFull = false) =>
  node.rpc<Block>('eth_getBlockByNumber', [typeof n === 'number' ? `0x${n.toString(16)}` : n, isFull])
const pending = async () => Number((await node.rpc<{ pending: string }>('txpool_status')).pending)

async function receipt(hash: string): Promise<{ status: string; blockNumber: string; contractAddress?: string }> {
  for (let i = 0; i < 200; i++) {
    const r = await node.rpc<{ status: string; blockNumber: string } | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await Bun.sleep(20)
  }
  throw new Error(`no receipt for ${hash}`)
}

async function send(tx: Record<string, string>): Promise<string> {
  return node.rpc<string>('eth_sendTransaction', [tx])
}

async function rpcError(method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  const res = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method, params })
  if (!res.json.error) throw new Error(`${method} did not fail`)
  return res.json.error
}

beforeAll(async () => {
  node = await startNode({ args: ['--dev-accounts-unlocked', '--rpc-http-api', APIS, '--rpc-ws-enabled=false'] })
})
afterAll(async () => {
  await node?.cleanup()
})

describe('anvil_rollback', () => {
  it('takes blocks off the head (one by default), with their transactions and state', async () => {
    const start = await blockNumber()
    const hash = await send({ from: DEV0, to: TARGET, value: '0x5' })
    await receipt(hash)
    await node.rpc('anvil_mine', ['0x2'])
    expect(await blockNumber()).toBe(start + 3)
    expect(await node.rpc('anvil_rollback', [null])).toBeNull()
    expect(await blockNumber()).toBe(start + 2)
    expect(await node.rpc('anvil_rollback', ['0x2'])).toBeNull()
    expect(await blockNumber()).toBe(start)
    expect(await node.rpc('eth_getTransactionByHash', [hash])).toBeNull()
    expect(await node.rpc('eth_getBalance', [TARGET, 'latest'])).toBe('0x0')
    const tooDeep = await rpcError('anvil_rollback', [start + 1])
    expect(tooDeep.code).toBe(-32602)
    expect(tooDeep.message).toContain('Rollback depth must not exceed current chain height')
    // The chain goes on from the new head.
    await receipt(await send({ from: DEV0, to: TARGET, value: '0x6' }))
    expect(await node.rpc('eth_getBalance', [TARGET, 'latest'])).toBe('0x6')
  })
})

describe('anvil_reorg', () => {
  it('replaces the last blocks with as many new ones holding the given transactions', async () => {
    await node.rpc('anvil_mine', ['0x2'])
    const height = await blockNumber()
    const old = await block(height - 1)
    const gone = await send({ from: DEV0, to: TARGET, value: '0x1' })
    await receipt(gone)
    const top = await blockNumber()
    // One request (filled and signed as eth_sendTransaction does) and one signed transaction.
    const raw = await signTransfer(KEY1, { to: TARGET, value: 0x20n, nonce: 0 })
    const pairs = [
      [{ from: DEV0, to: TARGET, value: '0x10' }, 0],
      [raw, 1],
    ]
    expect(await node.rpc('anvil_reorg', ['0x2', pairs])).toBeNull()
    expect(await blockNumber()).toBe(top)
    const replaced = await block(top - 1, true)
    expect(replaced.hash).not.toBe(old.hash)
    expect(replaced.transactions.map((t) => [t.from, t.value])).toEqual([[DEV0, '0x10']])
    const last = await block(top, true)
    expect(last.parentHash).toBe(replaced.hash)
    expect(last.transactions.map((t) => [t.from, t.value])).toEqual([[DEV1, '0x20']])
    expect(await node.rpc('eth_getTransactionByHash', [gone])).toBeNull()
    expect(await node.rpc('eth_getBalance', [TARGET, 'latest'])).toBe('0x36')
    expect((await rpcError('anvil_reorg', [top + 1, []])).message).toContain(
      'Reorg depth must not exceed current chain height',
    )
    expect((await rpcError('anvil_reorg', ['0x1', [[{ from: DEV0, to: TARGET }, 1]]])).code).toBe(-32602)
    expect(await blockNumber()).toBe(top)
  })
})

describe('evm_mine_detailed', () => {
  it('mines and answers the blocks with their transactions in full and each one’s output', async () => {
    await node.rpc('evm_setAutomine', [false])
    // Runtime: returns the word 0x2a (PUSH1 42, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN).
    await node.rpc('anvil_setCode', [TARGET, '0x602a60005260206000f3'])
    const hash = await send({ from: DEV0, to: TARGET, gas: '0x10000' })
    const head = await block('latest')
    const mined = await node.rpc<Block[]>('evm_mine_detailed', [])
    expect(mined.length).toBe(1)
    expect(Number(mined[0].number)).toBe(Number(head.number) + 1)
    expect(mined[0].transactions[0].hash).toBe(hash)
    expect(mined[0].transactions[0].output).toBe(`0x${'2a'.padStart(64, '0')}`)
    const two = await node.rpc<Block[]>('anvil_mine_detailed', [{ blocks: 2 }])
    expect(two.map((b) => Number(b.number))).toEqual([Number(head.number) + 2, Number(head.number) + 3])
    expect(two[1]).toEqual(await block('latest', true))
    await node.rpc('evm_setAutomine', [true])
  })
})

describe('pool and settings', () => {
  it('anvil_removePoolTransactions drops one sender’s pooled transactions only', async () => {
    await node.rpc('evm_setAutomine', [false])
    await send({ from: DEV0, to: TARGET, value: '0x1' })
    await send({ from: DEV0, to: TARGET, value: '0x1' })
    const kept = await send({ from: DEV1, to: TARGET, value: '0x1' })
    expect(await pending()).toBe(3)
    expect(await node.rpc('anvil_removePoolTransactions', [DEV0])).toBeNull()
    expect(await pending()).toBe(1)
    await node.rpc('evm_mine', [])
    expect((await receipt(kept)).status).toBe('0x1')
    await node.rpc('evm_setAutomine', [true])
  })

  it('anvil_setBlockGasLimit sets the gas limit of the blocks to come', async () => {
    expect(await node.rpc('anvil_setBlockGasLimit', ['0x1c9c381'])).toBe(true)
    await node.rpc('evm_mine', [])
    expect((await block('latest')).gasLimit).toBe('0x1c9c381')
  })

  it('anvil_getIntervalMining answers the interval in seconds, null when off', async () => {
    expect(await node.rpc('anvil_getIntervalMining')).toBeNull()
    await node.rpc('anvil_setIntervalMining', [30])
    expect(await node.rpc('anvil_getIntervalMining')).toBe(30)
    await node.rpc('anvil_setIntervalMining', [0])
    expect(await node.rpc('anvil_getIntervalMining')).toBeNull()
  })

  it('anvil_getGenesisTime answers the first block’s timestamp', async () => {
    expect(await node.rpc('anvil_getGenesisTime')).toBe(Number((await block('earliest')).timestamp))
  })

  it('evm_setAccountNonce sets a nonce as anvil_setNonce does', async () => {
    expect(await node.rpc('evm_setAccountNonce', [TARGET, '0x9'])).toBeNull()
    expect(await node.rpc('eth_getTransactionCount', [TARGET, 'latest'])).toBe('0x9')
  })

  it('anvil_setERC20Allowance finds the allowance slot of a token and sets it', async () => {
    const { bytecode } = compileContract(
      new URL('./contracts/AllowanceToken.sol', import.meta.url).pathname,
      'AllowanceToken',
    )
    const token = (await receipt(await send({ from: DEV0, data: bytecode, gas: '0x200000' }))).contractAddress!
    expect(await node.rpc('anvil_setERC20Allowance', [token, DEV0, DEV1, '0x3e8'])).toBeNull()
    const allowance = `0xdd62ed3e${DEV0.slice(2).padStart(64, '0')}${DEV1.slice(2).padStart(64, '0')}`
    expect(BigInt(await node.rpc<string>('eth_call', [{ to: token, data: allowance }, 'latest']))).toBe(1000n)
    const reverse = `0xdd62ed3e${DEV1.slice(2).padStart(64, '0')}${DEV0.slice(2).padStart(64, '0')}`
    expect(BigInt(await node.rpc<string>('eth_call', [{ to: token, data: reverse }, 'latest']))).toBe(0n)
    const err = await rpcError('anvil_setERC20Allowance', [TARGET, DEV0, DEV1, '0x1'])
    expect(err).toEqual({ code: -32000, message: 'Unable to set ERC20 allowance, no slot found' })
  })
})
