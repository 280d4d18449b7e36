import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { callerRuntime, STORE_RUNTIME, type TracingChain, tracingChain } from '../../test/tracing/tracingChain.ts'
import { devAccounts } from '../chain/devAccounts.ts'
import { poolChainView } from '../node/node.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import type { RpcServices } from '../rpc/context.ts'
import { afterAll, beforeAll, describe, expect, it } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { type GraphqlResponse, GraphqlService } from './graphqlService.ts'

let tc: TracingChain
let pool: TxPool
let service: GraphqlService
let store: string
let caller: string
let callTxHash: string

beforeAll(async () => {
  tc = await tracingChain()
  store = await tc.deploy(STORE_RUNTIME)
  caller = await tc.deploy(callerRuntime(store))
  callTxHash = bytesToHex(await tc.send({ to: caller }))
  const chain = tc.chain
  pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
  const settings = {
    chainId: 1337n,
    gasPriceBlocks: 100,
    gasPricePercentile: 50,
    minGasPrice: 1000n,
    gasPriceMax: 10n ** 12n,
    rpcGasCap: 0n,
    rpcEvmTimeoutMs: 5000,
  }
  service = new GraphqlService({ chain, pool, settings } as unknown as RpcServices)
})
afterAll(() => tc?.close())

const run = (query: string, variables?: unknown) => service.execute({ query, variables })
const firstError = (res: GraphqlResponse) =>
  res.body.errors?.[0] ?? { message: '', locations: undefined, path: undefined }
const data = async (query: string, variables?: unknown) => {
  const res = await run(query, variables)
  expect(res.body.errors).toBeUndefined()
  // biome-ignore lint/suspicious/noExplicitAny: tests walk the answer's nested JSON
  return res.body.data as any
}

describe('Query.block', () => {
  it('answers the head with Long and hashes as 0x-hex', async () => {
    const d = await data('{ block { number hash parent { number } transactionCount } }')
    expect(d.block.number).toBe('0x3')
    expect(d.block.hash).toBe(bytesToHex(tc.chain.head.hash()))
    expect(d.block.parent.number).toBe('0x2')
    expect(d.block.transactionCount).toBe('0x1')
  })

  it('finds a block by number given as a hex string variable', async () => {
    const d = await data('query($n: Long) { block(number: $n) { number } }', { n: '0x1' })
    expect(d.block.number).toBe('0x1')
  })

  it('gives a located field error with Besu wording for an unknown number', async () => {
    const res = await run('{ block(number: 99) { number } }')
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual({ block: null })
    expect(res.body.errors).toEqual([
      {
        message: 'Exception while fetching data (/block) : Block number 99 was not found',
        locations: [{ line: 1, column: 3 }],
        path: ['block'],
        extensions: { classification: 'DataFetchingException' },
      },
    ])
  })

  it('refuses both number and hash', async () => {
    const res = await run(`{ block(number: 1, hash: "${bytesToHex(tc.chain.head.hash())}") { number } }`)
    expect(firstError(res).message).toContain('Invalid params')
  })
})

describe('Block', () => {
  it('reads accounts, storage and logs in the block state', async () => {
    const d = await data(
      `{ block { account(address: "${store}") { code storage(slot: "0x0") } logs(filter: {}) { index topics } } }`,
    )
    expect(d.block.account.code).toBe(`0x${STORE_RUNTIME}`)
    expect(d.block.account.storage).toBe(`0x${'0'.repeat(62)}2a`)
    expect(d.block.logs).toEqual([{ index: '0x0', topics: [`0x${'0'.repeat(63)}1`] }])
  })

  it('calls and estimates on the block state', async () => {
    const d = await data(
      `{ block { call(data: { to: "${store}" }) { data status gasUsed } estimateGas(data: { to: "${store}" }) } }`,
    )
    expect(d.block.call.data).toBe(`0x${'0'.repeat(62)}2a`)
    expect(d.block.call.status).toBe('0x1')
    expect(Number(d.block.estimateGas)).toBeGreaterThan(21000)
  })

  it("answers a sender that cannot pay as Besu's GraphQL: fees are zero, a value above the balance is an invalid run", async () => {
    const poor = `0x${'77'.repeat(20)}`
    const to = `0x${'42'.repeat(20)}`
    const query = (fields: string) =>
      `{ block { call(data: { from: "${poor}", to: "${to}", ${fields} }) { status gasUsed data } estimateGas(data: { from: "${poor}", to: "${to}", ${fields} }) } }`
    // Gas it cannot pay for: Besu simulates with the balance allowed to be exceeded, fees zero.
    for (const fees of ['gasPrice: "0x3b9aca00", gas: "0x5208"', 'maxFeePerGas: "0x3b9aca00"']) {
      const d = await data(query(fees))
      expect(d.block.call).toEqual({ status: '0x1', gasUsed: '0x5208', data: '0x' })
      expect(d.block.estimateGas).toBe('0x5208')
    }
    // A value above its balance: Besu's transfer fails, an invalid result (status 0, estimate -1).
    const d = await data(query('value: "0x1"'))
    expect(d.block.call).toEqual({ status: '0x0', gasUsed: '0xffffffffffffffff', data: '0x' })
    expect(d.block.estimateGas).toBe('0xffffffffffffffff')
    const pending = await data(`{ pending { estimateGas(data: { from: "${poor}", to: "${to}", value: "0x1" }) } }`)
    expect(pending.pending.estimateGas).toBe('0xffffffffffffffff')
  })

  it('reports a reverting call as status 0', async () => {
    const reverter = await tc.deploy('60006000fd')
    const d = await data(`{ block { call(data: { to: "${reverter}" }) { status } } }`)
    expect(d.block.call.status).toBe('0x0')
  })
})

describe('Query.transaction', () => {
  it('answers receipt fields, logs and the raw receipt of a mined transaction', async () => {
    const d = await data(
      `{ transaction(hash: "${callTxHash}") { index status gasUsed type from { address } to { address } logs { index data } rawReceipt block { number } } }`,
    )
    const t = d.transaction
    expect(t.index).toBe('0x0')
    expect(t.status).toBe('0x1')
    expect(t.type).toBe('0x2')
    expect(t.from.address).toBe(tc.sender)
    expect(t.to.address).toBe(caller)
    expect(t.logs[0].data).toBe(`0x${'0'.repeat(62)}2a`)
    expect(t.rawReceipt.startsWith('0x02')).toBe(true)
  })

  it('answers null for an unknown hash', async () => {
    expect((await data(`{ transaction(hash: "0x${'1'.repeat(64)}") { hash } }`)).transaction).toBeNull()
  })
})

describe('Query.logs', () => {
  it('filters by topic over a range', async () => {
    const d = await data(
      `{ logs(filter: { fromBlock: 0, topics: [["0x${'0'.repeat(63)}1"]] }) { index account { address } transaction { hash } } }`,
    )
    expect(d.logs).toEqual([{ index: '0x0', account: { address: caller }, transaction: { hash: callTxHash } }])
  })
})

/** Stores its own balance in slot 0 and returns it: its gas and output follow its balance. */
const SELF_BALANCE_RUNTIME = '478060005560005260206000f3'

describe('Query.pending', () => {
  it('counts and lists pool transactions; account, call and estimateGas read the head state, not the pool', async () => {
    const recipient = await tc.deploy(SELF_BALANCE_RUNTIME)
    const sender = devAccounts()[1]
    const tx = createFeeMarket1559Tx(
      {
        chainId: 1337n,
        nonce: 0n,
        to: recipient as `0x${string}`,
        value: 10n ** 18n,
        gasLimit: 100_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: tc.chain.commonForNextBlock() },
    ).sign(hexToBytes(sender.privateKey))
    await pool.add(tx)
    const reads = `to: account(address: "${recipient}") { balance }
      from: account(address: "${sender.address}") { transactionCount }
      call(data: { to: "${recipient}" }) { data }
      estimateGas(data: { to: "${recipient}" })`
    const d = await data(
      `{ pending { transactionCount transactions { hash index block { number } } ${reads} } block { ${reads} } }`,
    )
    expect(d.pending.transactionCount).toBe('0x1')
    expect(d.pending.transactions).toEqual([{ hash: bytesToHex(tx.hash()), index: null, block: null }])
    // Executing the pooled transfer would fund the recipient, raise its gas and bump the sender's nonce.
    const { transactions: _, transactionCount: __, ...pendingReads } = d.pending
    expect(pendingReads).toEqual(d.block)
    expect(d.block.to.balance).toBe('0x0')
    expect(d.block.from.transactionCount).toBe('0x0')
    expect(d.block.call.data).toBe(`0x${'0'.repeat(64)}`)
    expect(Number(d.block.estimateGas)).toBeLessThan(30_000)
  })
})

describe('Query scalars at the root', () => {
  it('answers chainID and gasPrice as hex and syncing as null', async () => {
    const d = await data('{ chainID gasPrice maxPriorityFeePerGas syncing { currentBlock } }')
    expect(d.chainID).toBe('0x539')
    expect(d.gasPrice.startsWith('0x')).toBe(true)
    expect(d.syncing).toBeNull()
  })
})

describe('GraphqlService.execute', () => {
  it('answers a syntax error with its location', async () => {
    const res = await run('{ block ')
    expect(res.status).toBe(400)
    expect(firstError(res).locations).toEqual([{ line: 1, column: 9 }])
  })

  it('answers a bad scalar literal as graphql-java does, located at the argument', async () => {
    const res = await run('{ block(hash: "abc") { number } }')
    expect(res.body.errors).toEqual([
      {
        message:
          "Validation error (WrongType@[block]) : argument 'hash' with value 'StringValue{value='abc'}' is not a valid 'Bytes32' - Bytes32 value 'abc' is not prefixed with 0x",
        locations: [{ line: 1, column: 9 }],
        extensions: { classification: 'ValidationError' },
      },
    ])
  })

  it("refuses Besu's too-complex query before running it", async () => {
    const res = await run('{ block { transactions { block { transactions { block { number }}}}}}')
    expect(res.body.errors).toEqual([
      { message: 'maximum query complexity exceeded 204 > 200', extensions: { classification: 'ExecutionAborted' } },
    ])
  })

  it('refuses mutations on read-only (GET) requests', async () => {
    const res = await service.execute({ query: 'mutation { sendRawTransaction(data: "0x00") }' }, true)
    expect(res.status).toBe(405)
  })

  it("turns bytes that are no transaction into Besu's Invalid params, with its code", async () => {
    const res = await run('mutation { sendRawTransaction(data: "0x01") }')
    expect(res.body.errors).toEqual([
      {
        message: 'Exception while fetching data (/sendRawTransaction) : Invalid params',
        locations: [{ line: 1, column: 12 }],
        path: ['sendRawTransaction'],
        extensions: { errorCode: -32602, errorMessage: 'Invalid params', classification: 'DataFetchingException' },
      },
    ])
  })

  it("turns a pool refusal into Besu's GraphQL error kind (Nonce too low, -32001)", async () => {
    const stale = createFeeMarket1559Tx(
      {
        chainId: 1337n,
        nonce: 0n,
        to: caller as `0x${string}`,
        gasLimit: 100_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: tc.chain.commonForNextBlock() },
    ).sign(hexToBytes(devAccounts()[0].privateKey))
    const res = await run(`mutation { sendRawTransaction(data: "${bytesToHex(stale.serialize())}") }`)
    expect(firstError(res).message).toBe('Exception while fetching data (/sendRawTransaction) : Nonce too low')
    expect(res.body.errors?.[0].extensions).toEqual({
      errorCode: -32001,
      errorMessage: 'Nonce too low',
      classification: 'DataFetchingException',
    })
  })

  it('answers number and hash together with Invalid params and its code -32602, as Besu', async () => {
    const res = await run(`{ block(number: 1, hash: "${bytesToHex(tc.chain.head.hash())}") { number } }`)
    expect(res.body.errors?.[0].extensions).toEqual({
      errorCode: -32602,
      errorMessage: 'Invalid params',
      classification: 'DataFetchingException',
    })
  })
})
