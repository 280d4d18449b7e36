/** Otterscan's ots_* methods (API level 8) on the compiled binary, against a chain with known history. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Abi, encodeFunctionData, getContractAddress } from 'viem'
import { compileContract } from './contracts/compile.ts'
import { type StartedNode, startNode } from './harness.ts'

const { abi, bytecode } = compileContract(new URL('./contracts/Factory.sol', import.meta.url).pathname, 'Factory')
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const PAYEE = '0x000000000000000000000000000000000000beef'
let node: StartedNode
let factory: string
let child: string
const hashes: Record<string, string> = {}

interface Receipt {
  blockNumber: string
  contractAddress: string | null
  status: string
}

async function send(name: string, tx: Record<string, string>): Promise<Receipt> {
  const hash = await node.rpc<string>('eth_sendTransaction', [{ from: DEV0, gas: '0x100000', ...tx }])
  hashes[name] = hash
  for (let i = 0; i < 100; i++) {
    const r = await node.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await Bun.sleep(20)
  }
  throw new Error(`no receipt for ${name}`)
}

const call = (functionName: string, args: unknown[] = []) =>
  encodeFunctionData({ abi: abi as Abi, functionName, args }) as string

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-ws-enabled=false', '--dev-accounts-unlocked'] })
  await send('empty', { to: PAYEE, value: '0x1' })
  factory = (await send('deploy', { data: bytecode })).contractAddress!
  await send('make', { to: factory, data: call('make'), value: '0x64' })
  child = getContractAddress({ from: factory as `0x${string}`, nonce: 1n }).toLowerCase()
  await send('pay', { to: factory, data: call('pay', [PAYEE]), value: '0x7' })
  expect((await send('fail', { to: factory, data: call('fail') })).status).toBe('0x0')
})
afterAll(async () => {
  await node?.cleanup()
})

describe('ots_*', () => {
  it('answers API level 8 and whether an address has code, at a block', async () => {
    expect(await node.rpc('ots_getApiLevel')).toBe(8)
    expect(await node.rpc('ots_hasCode', [factory, 'latest'])).toBe(true)
    expect(await node.rpc('ots_hasCode', [PAYEE, 'latest'])).toBe(false)
    expect(await node.rpc('ots_hasCode', [factory, '0x1'])).toBe(false)
  })

  it('finds contract creators, a transaction or a contract', async () => {
    expect(await node.rpc('ots_getContractCreator', [factory])).toEqual({ hash: hashes.deploy, creator: DEV0 })
    expect(await node.rpc('ots_getContractCreator', [child])).toEqual({ hash: hashes.make, creator: factory })
    expect(await node.rpc('ots_getContractCreator', [PAYEE])).toBeNull()
  })

  it('lists internal operations and the call trace', async () => {
    expect(await node.rpc('ots_getInternalOperations', [hashes.make])).toEqual([
      { type: 2, from: factory, to: child, value: '0x64' },
    ])
    expect(await node.rpc('ots_getInternalOperations', [hashes.pay])).toEqual([
      { type: 0, from: factory, to: PAYEE, value: '0x7' },
    ])
    const trace = await node.rpc<{ type: string; depth: number; from: string; to: string }[]>('ots_traceTransaction', [
      hashes.make,
    ])
    expect(trace.map((t) => [t.type, t.depth, t.from, t.to])).toEqual([
      ['CALL', 0, DEV0, factory],
      ['CREATE', 1, factory, child],
    ])
  })

  it('answers the revert data of a failed transaction, 0x for a successful one', async () => {
    const error = await node.rpc<string>('ots_getTransactionError', [hashes.fail])
    expect(error.startsWith('0x08c379a0')).toBe(true)
    expect(await node.rpc('ots_getTransactionError', [hashes.pay])).toBe('0x')
  })

  it('finds a transaction by sender and nonce', async () => {
    expect(await node.rpc('ots_getTransactionBySenderAndNonce', [DEV0, '0x0'])).toBe(hashes.empty)
    expect(await node.rpc('ots_getTransactionBySenderAndNonce', [DEV0, '0x3'])).toBe(hashes.pay)
    expect(await node.rpc('ots_getTransactionBySenderAndNonce', [DEV0, '0x63'])).toBeNull()
  })

  it('gives block details and a page of a block transactions', async () => {
    const { blockNumber } = await node.rpc<Receipt>('eth_getTransactionReceipt', [hashes.pay])
    const details = await node.rpc<{ block: { transactionCount: number; logsBloom: null }; totalFees: string }>(
      'ots_getBlockDetails',
      [blockNumber],
    )
    expect(details.block).toMatchObject({ transactionCount: 1, logsBloom: null })
    expect(BigInt(details.totalFees)).toBeGreaterThan(0n)
    const page = await node.rpc<{
      fullblock: { transactions: { hash: string }[]; transactionCount: number }
      receipts: { logs: null }[]
    }>('ots_getBlockTransactions', [blockNumber, '0x0', '0xa'])
    expect(page.fullblock.transactions.map((t) => t.hash)).toEqual([hashes.pay])
    expect(page.receipts[0].logs).toBeNull()
  })

  it('searches an address history, newest first, in pages', async () => {
    const all = await node.rpc<{ txs: { hash: string }[]; firstPage: boolean; lastPage: boolean }>(
      'ots_searchTransactionsBefore',
      [factory, '0x0', '0xa'],
    )
    expect(all.txs.map((t) => t.hash)).toEqual([hashes.fail, hashes.pay, hashes.make, hashes.deploy])
    expect(all).toMatchObject({ firstPage: true, lastPage: true })
    const first = await node.rpc<{ txs: { hash: string }[]; lastPage: boolean }>('ots_searchTransactionsBefore', [
      factory,
      '0x0',
      '0x1',
    ])
    expect(first.txs.map((t) => t.hash)).toEqual([hashes.fail])
    expect(first.lastPage).toBe(false)
    const after = await node.rpc<{ txs: { hash: string }[]; firstPage: boolean }>('ots_searchTransactionsAfter', [
      factory,
      '0x0',
      '0x2',
    ])
    expect(after.txs.map((t) => t.hash)).toEqual([hashes.make, hashes.deploy])
  })
})
