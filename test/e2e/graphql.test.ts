/**
 * GraphQL (EIP-1767) on its own port, against the compiled binary: every query shape that replaces
 * a JSON-RPC method gives the JSON-RPC answer on the same chain; errors are GraphQL errors with
 * locations; the listener applies the host allowlist and CORS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { createWalletClient, defineChain, type Hex, http, parseEther, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type StartedNode, startNode } from './harness.ts'

/** Deploys a runtime that stores 0x2a in slot 0 and returns slot 0. */
const STORE_INIT = '0x6010600c60003960106000f3602a60005560005460005260206000f3'

let node: StartedNode
let graphqlUrl: string
let wallet: ReturnType<typeof walletFor>
let contract: Hex
let minedHash: Hex
let deployHash: Hex

function walletFor(url: string, key: Hex) {
  const chain = defineChain({
    id: 1337,
    name: 'basalt',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
  return createWalletClient({ account: privateKeyToAccount(key), chain, transport: http() }).extend(publicActions)
}

async function gql(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  })
  // biome-ignore lint/suspicious/noExplicitAny: tests walk the answer's nested JSON
  return { status: res.status, json: (await res.json()) as any }
}

async function data(query: string, variables?: Record<string, unknown>) {
  const { status, json } = await gql(query, variables)
  expect(json.errors).toBeUndefined()
  expect(status).toBe(200)
  return json.data
}

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC objects are read field by field
type Json = Record<string, any>

const hex = (n: number) => `0x${n.toString(16)}`

beforeAll(async () => {
  node = await startNode({
    args: [
      '--graphql-http-enabled',
      '--graphql-http-host',
      '127.0.0.1',
      '--graphql-http-port',
      '0',
      '--graphql-http-cors-origins',
      'http://app.example',
      '--rpc-http-api',
      'ETH,NET,WEB3,DEBUG',
    ],
  })
  const out = JSON.parse(readFileSync(join(node.dir, 'config-out.json'), 'utf8')) as { graphqlHttpPort: number }
  graphqlUrl = `http://127.0.0.1:${out.graphqlHttpPort}/graphql`
  wallet = walletFor(node.url, node.config.accounts[4].privateKey as Hex)
  deployHash = await wallet.sendTransaction({ data: STORE_INIT, gas: 200_000n })
  contract = (await wallet.waitForTransactionReceipt({ hash: deployHash })).contractAddress as Hex
  minedHash = await wallet.sendTransaction({
    to: '0x000000000000000000000000000000000000beef',
    value: parseEther('2'),
    gas: 21_000n,
  })
  await wallet.waitForTransactionReceipt({ hash: minedHash })
})
afterAll(async () => {
  await node?.cleanup()
})

describe('GraphQL queries equal their JSON-RPC counterparts', () => {
  it('block { number } is eth_blockNumber', async () => {
    const d = await data('{ block { number } }')
    expect(d.block.number).toBe(await node.rpc<string>('eth_blockNumber'))
  })

  it('gasPrice is eth_gasPrice and maxPriorityFeePerGas is eth_maxPriorityFeePerGas', async () => {
    const d = await data('{ gasPrice maxPriorityFeePerGas chainID }')
    expect(d.gasPrice).toBe(await node.rpc<string>('eth_gasPrice'))
    expect(d.maxPriorityFeePerGas).toBe(await node.rpc<string>('eth_maxPriorityFeePerGas'))
    expect(d.chainID).toBe(await node.rpc<string>('eth_chainId'))
  })

  it('syncing is null when eth_syncing is false', async () => {
    expect(await node.rpc('eth_syncing')).toBe(false)
    expect((await data('{ syncing { startingBlock currentBlock highestBlock } }')).syncing).toBeNull()
  })

  it('block { account { balance transactionCount code storage } } is eth_getBalance and friends', async () => {
    const who = node.config.accounts[4].address
    const d = await data(
      'query($a: Address!, $c: Address!) { block { a: account(address: $a) { balance transactionCount } c: account(address: $c) { code storage(slot: "0x0") } } }',
      { a: who, c: contract },
    )
    expect(d.block.a.balance).toBe(await node.rpc<string>('eth_getBalance', [who, 'latest']))
    expect(d.block.a.transactionCount).toBe(await node.rpc<string>('eth_getTransactionCount', [who, 'latest']))
    expect(d.block.c.code).toBe(await node.rpc<string>('eth_getCode', [contract, 'latest']))
    expect(d.block.c.storage).toBe(await node.rpc<string>('eth_getStorageAt', [contract, '0x0', 'latest']))
  })

  it('account(address, blockNumber) at the root reads the latest state or the given block', async () => {
    const who = node.config.accounts[4].address
    const d = await data(
      'query($a: Address!) { latest: account(address: $a) { balance } genesis: account(address: $a, blockNumber: 0) { balance } }',
      { a: who },
    )
    expect(d.latest.balance).toBe(await node.rpc<string>('eth_getBalance', [who, 'latest']))
    expect(d.genesis.balance).toBe(await node.rpc<string>('eth_getBalance', [who, '0x0']))
  })

  it('block(hash) with every field is eth_getBlockByHash', async () => {
    const head = await node.rpc<Json>('eth_getBlockByNumber', ['latest', false])
    const d = await data(
      `query($h: Bytes32) { block(hash: $h) {
        number hash parent { hash } nonce transactionsRoot transactionCount stateRoot receiptsRoot miner { address }
        extraData gasLimit gasUsed baseFeePerGas nextBaseFeePerGas timestamp logsBloom mixHash difficulty totalDifficulty
        ommerCount ommers { hash } ommerHash transactions { hash } rawHeader raw withdrawalsRoot
        withdrawals { index validator address amount } blobGasUsed excessBlobGas } }`,
      { h: head.hash },
    )
    const b = d.block
    const rpc = await node.rpc<Json>('eth_getBlockByHash', [head.hash, false])
    expect({
      number: b.number,
      hash: b.hash,
      parentHash: b.parent.hash,
      nonce: b.nonce,
      transactionsRoot: b.transactionsRoot,
      stateRoot: b.stateRoot,
      receiptsRoot: b.receiptsRoot,
      miner: b.miner.address,
      extraData: b.extraData,
      gasLimit: b.gasLimit,
      gasUsed: b.gasUsed,
      baseFeePerGas: b.baseFeePerGas,
      timestamp: b.timestamp,
      logsBloom: b.logsBloom,
      mixHash: b.mixHash,
      difficulty: b.difficulty,
      sha3Uncles: b.ommerHash,
      uncles: b.ommers.map((o: { hash: string }) => o.hash),
      transactions: b.transactions.map((t: { hash: string }) => t.hash),
      withdrawalsRoot: b.withdrawalsRoot,
      blobGasUsed: b.blobGasUsed,
      excessBlobGas: b.excessBlobGas,
    }).toEqual({
      number: rpc.number,
      hash: rpc.hash,
      parentHash: rpc.parentHash,
      nonce: rpc.nonce,
      transactionsRoot: rpc.transactionsRoot,
      stateRoot: rpc.stateRoot,
      receiptsRoot: rpc.receiptsRoot,
      miner: rpc.miner,
      extraData: rpc.extraData,
      gasLimit: rpc.gasLimit,
      gasUsed: rpc.gasUsed,
      baseFeePerGas: rpc.baseFeePerGas,
      timestamp: rpc.timestamp,
      logsBloom: rpc.logsBloom,
      mixHash: rpc.mixHash,
      difficulty: rpc.difficulty,
      sha3Uncles: rpc.sha3Uncles,
      uncles: rpc.uncles,
      transactions: rpc.transactions,
      withdrawalsRoot: rpc.withdrawalsRoot,
      blobGasUsed: rpc.blobGasUsed,
      excessBlobGas: rpc.excessBlobGas,
    })
    expect(b.transactionCount).toBe(hex(rpc.transactions.length))
    expect(b.ommerCount).toBe('0x0')
    expect(b.withdrawals).toEqual(rpc.withdrawals)
    expect(hex(b.raw.length / 2 - 1)).toBe(rpc.size)
    expect(`0x${Buffer.from(keccak_256(Buffer.from(b.rawHeader.slice(2), 'hex'))).toString('hex')}`).toBe(rpc.hash)
  })

  it('block { call } is eth_call and block { estimateGas } is eth_estimateGas', async () => {
    const d = await data(
      'query($c: Address!) { block { call(data: { to: $c }) { data status gasUsed } estimateGas(data: { to: $c }) } }',
      { c: contract },
    )
    expect(d.block.call.data).toBe(await node.rpc<string>('eth_call', [{ to: contract }, 'latest']))
    expect(d.block.call.status).toBe('0x1')
    expect(d.block.estimateGas).toBe(await node.rpc<string>('eth_estimateGas', [{ to: contract }, 'latest']))
  })

  it('transaction(hash) is eth_getTransactionByHash with its receipt', async () => {
    const d = await data(
      'query($h: Bytes32!) { transaction(hash: $h) { hash nonce index from { address } to { address } value gasPrice maxFeePerGas maxPriorityFeePerGas gas inputData block { hash } status gasUsed cumulativeGasUsed effectiveGasPrice type r s v yParity } }',
      { h: minedHash },
    )
    const t = d.transaction
    const tx = await node.rpc<Json>('eth_getTransactionByHash', [minedHash])
    const receipt = await node.rpc<Json>('eth_getTransactionReceipt', [minedHash])
    expect([t.hash, t.nonce, t.index, t.from.address, t.to.address, t.value, t.gasPrice]).toEqual([
      tx.hash,
      tx.nonce,
      tx.transactionIndex,
      tx.from,
      tx.to,
      tx.value,
      tx.gasPrice,
    ])
    expect([t.maxFeePerGas, t.maxPriorityFeePerGas, t.gas, t.inputData, t.block.hash, t.type]).toEqual([
      tx.maxFeePerGas,
      tx.maxPriorityFeePerGas,
      tx.gas,
      tx.input,
      tx.blockHash,
      tx.type,
    ])
    expect([t.r, t.s, t.v, t.yParity]).toEqual([tx.r, tx.s, tx.v, tx.yParity])
    expect([t.status, t.gasUsed, t.cumulativeGasUsed, t.effectiveGasPrice]).toEqual([
      receipt.status,
      receipt.gasUsed,
      receipt.cumulativeGasUsed,
      receipt.effectiveGasPrice,
    ])
  })

  it('pending { transactionCount transactions { hash } } lists what the pool holds', async () => {
    const account = privateKeyToAccount(node.config.accounts[5].privateKey as Hex)
    const nonce = await node.rpc<string>('eth_getTransactionCount', [account.address, 'latest'])
    // A nonce gap keeps the transaction in the pool: with automine the next one would be mined at once.
    const raw = await account.signTransaction({
      chainId: 1337,
      type: 'eip1559',
      to: contract,
      nonce: Number(nonce) + 3,
      gas: 50_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 1n,
    })
    const hash = await node.rpc<Hex>('eth_sendRawTransaction', [raw])
    const d = await data('{ pending { transactionCount transactions { hash index block { number } } } }')
    expect(Number(d.pending.transactionCount)).toBeGreaterThanOrEqual(1)
    expect(d.pending.transactions).toContainEqual({ hash, index: null, block: null })
    expect((await node.rpc<Json>('eth_getTransactionByHash', [hash])).blockHash).toBeNull()
  })

  it('pending { account call estimateGas } read the head state', async () => {
    const who = node.config.accounts[4].address
    const d = await data(
      'query($a: Address!, $c: Address!) { pending { account(address: $a) { balance } call(data: { to: $c }) { data } estimateGas(data: { to: $c }) } }',
      {
        a: who,
        c: contract,
      },
    )
    expect(d.pending.account.balance).toBe(await node.rpc<string>('eth_getBalance', [who, 'latest']))
    expect(d.pending.call.data).toBe(await node.rpc<string>('eth_call', [{ to: contract }, 'latest']))
    expect(d.pending.estimateGas).toBe(await node.rpc<string>('eth_estimateGas', [{ to: contract }, 'latest']))
  })

  it('block(number) { account } reads that block, as eth_getBalance at a block number', async () => {
    const who = node.config.accounts[4].address
    const d = await data(
      'query($a: Address!) { block(number: 1) { account(address: $a) { balance transactionCount } } }',
      {
        a: who,
      },
    )
    expect(d.block.account.balance).toBe(await node.rpc<string>('eth_getBalance', [who, '0x1']))
    expect(d.block.account.transactionCount).toBe(await node.rpc<string>('eth_getTransactionCount', [who, '0x1']))
    expect(d.block.account.balance).not.toBe(await node.rpc<string>('eth_getBalance', [who, 'latest']))
  })

  it('block(hash) { transactions { … } } is eth_getBlockByHash with full transactions', async () => {
    const { blockHash } = await node.rpc<Json>('eth_getTransactionReceipt', [deployHash])
    const rpc = await node.rpc<Json>('eth_getBlockByHash', [blockHash, true])
    const next = await node.rpc<Json>('eth_getBlockByNumber', [hex(Number(rpc.number) + 1), false])
    const d = await data(
      `query($h: Bytes32) { block(hash: $h) { nextBaseFeePerGas transactionAt(index: 0) { hash }
        transactions { hash nonce index from { address } to { address } value gas gasPrice maxFeePerGas
          maxPriorityFeePerGas inputData type r s v yParity accessList { address } block { hash } } } }`,
      { h: blockHash },
    )
    expect(d.block.nextBaseFeePerGas).toBe(next.baseFeePerGas)
    expect(d.block.transactionAt.hash).toBe(rpc.transactions[0].hash)
    expect(
      d.block.transactions.map((t: Json) => ({
        hash: t.hash,
        nonce: t.nonce,
        transactionIndex: t.index,
        from: t.from.address,
        to: t.to?.address ?? null,
        value: t.value,
        gas: t.gas,
        gasPrice: t.gasPrice,
        maxFeePerGas: t.maxFeePerGas,
        maxPriorityFeePerGas: t.maxPriorityFeePerGas,
        input: t.inputData,
        type: t.type,
        r: t.r,
        s: t.s,
        v: t.v,
        yParity: t.yParity,
        accessList: t.accessList,
        blockHash: t.block.hash,
      })),
    ).toEqual(
      rpc.transactions.map((t: Json) => ({
        hash: t.hash,
        nonce: t.nonce,
        transactionIndex: t.transactionIndex,
        from: t.from,
        to: t.to,
        value: t.value,
        gas: t.gas,
        gasPrice: t.gasPrice,
        maxFeePerGas: t.maxFeePerGas,
        maxPriorityFeePerGas: t.maxPriorityFeePerGas,
        input: t.input,
        type: t.type,
        r: t.r,
        s: t.s,
        v: t.v,
        yParity: t.yParity,
        accessList: t.accessList,
        blockHash: t.blockHash,
      })),
    )
  })

  it('rawHeader, raw, Transaction.raw and rawReceipt are the debug_getRaw* encodings', async () => {
    const { blockNumber } = await node.rpc<Json>('eth_getTransactionReceipt', [deployHash])
    const d = await data(
      'query($n: Long) { block(number: $n) { rawHeader raw transactionAt(index: 0) { hash raw rawReceipt } } }',
      { n: blockNumber },
    )
    expect(d.block.transactionAt.hash).toBe(deployHash)
    expect(d.block.rawHeader).toBe(await node.rpc<string>('debug_getRawHeader', [blockNumber]))
    expect(d.block.raw).toBe(await node.rpc<string>('debug_getRawBlock', [blockNumber]))
    expect(d.block.transactionAt.raw).toBe(await node.rpc<string>('debug_getRawTransaction', [deployHash]))
    expect(d.block.transactionAt.rawReceipt).toBe((await node.rpc<string[]>('debug_getRawReceipts', [blockNumber]))[0])
  })

  it('createdContract is the receipt contractAddress; the blob fields are empty for a fee-market transaction', async () => {
    const receipt = await node.rpc<Json>('eth_getTransactionReceipt', [deployHash])
    const block = await node.rpc<Json>('eth_getBlockByHash', [receipt.blockHash, false])
    const fields =
      'to { address } createdContract { address code } effectiveTip effectiveGasPrice maxFeePerBlobGas blobGasUsed blobGasPrice blobVersionedHashes revertReason'
    const d = await data(
      `query($d: Bytes32!, $m: Bytes32!) { d: transaction(hash: $d) { ${fields} } m: transaction(hash: $m) { createdContract { address } } }`,
      {
        d: deployHash,
        m: minedHash,
      },
    )
    expect(d.d.to).toBeNull()
    expect(d.d.createdContract).toEqual({
      address: receipt.contractAddress,
      code: await node.rpc<string>('eth_getCode', [receipt.contractAddress, receipt.blockNumber]),
    })
    expect(d.m.createdContract).toBeNull()
    expect(d.d.effectiveGasPrice).toBe(receipt.effectiveGasPrice)
    expect(BigInt(d.d.effectiveTip)).toBe(BigInt(receipt.effectiveGasPrice) - BigInt(block.baseFeePerGas))
    expect([
      d.d.maxFeePerBlobGas,
      d.d.blobGasUsed,
      d.d.blobGasPrice,
      d.d.blobVersionedHashes,
      d.d.revertReason,
    ]).toEqual([null, null, null, [], null])
  })

  it('logs(filter) and blocks(from, to) walk the chain', async () => {
    const head = Number(await node.rpc<string>('eth_blockNumber'))
    const d = await data('{ blocks(from: 0) { number } logs(filter: { fromBlock: 0 }) { index } }')
    expect(d.blocks.map((b: { number: string }) => b.number)).toEqual([...Array(head + 1).keys()].map(hex))
    const rpcLogs = await node.rpc<{ logIndex: string }[]>('eth_getLogs', [{ fromBlock: '0x0' }])
    expect(d.logs.map((l: { index: string }) => l.index)).toEqual(rpcLogs.map((l) => l.logIndex))
  })
})

describe('GraphQL mutation', () => {
  it('sendRawTransaction submits like eth_sendRawTransaction', async () => {
    const account = privateKeyToAccount(node.config.accounts[6].privateKey as Hex)
    const raw = await account.signTransaction({
      chainId: 1337,
      type: 'eip1559',
      to: '0x000000000000000000000000000000000000cafe',
      value: 5n,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 1n,
    })
    const d = await data('mutation($r: Bytes!) { sendRawTransaction(data: $r) }', { r: raw })
    const receipt = await wallet.waitForTransactionReceipt({ hash: d.sendRawTransaction })
    expect(receipt.status).toBe('success')
  })
})

describe('GraphQL errors', () => {
  it('answers an unknown block with a located field error and HTTP 400', async () => {
    const { status, json } = await gql('{ block(number: 88888888) { number } }')
    expect(status).toBe(400)
    expect(json.data).toEqual({ block: null })
    expect(json.errors[0]).toMatchObject({
      message: 'Exception while fetching data (/block) : Block number 88888888 was not found',
      locations: [{ line: 1, column: 3 }],
      path: ['block'],
    })
  })

  it("answers a bad scalar and a syntax error in Besu's (graphql-java's) words, with their locations", async () => {
    const bad = await gql('{ block(hash: "0xzz") { number } }')
    expect(bad.status).toBe(400)
    expect(bad.json.errors[0]).toMatchObject({
      message:
        "Validation error (WrongType@[block]) : argument 'hash' with value 'StringValue{value='0xzz'}' is not a valid 'Bytes32' - Value is not any Bytes32 : 'StringValue{value='0xzz'}'",
      locations: [{ line: 1, column: 9 }],
    })
    const syntax = await gql('{ block { number }')
    expect(syntax.json.errors[0]).toMatchObject({
      message: "Invalid syntax with offending token '<EOF>' at line 1 column 19",
      locations: [{ line: 1, column: 19 }],
      extensions: { classification: 'InvalidSyntax' },
    })
  })

  it('answers an unknown block hash with a located field error', async () => {
    const unknown = `0x${'ab'.repeat(32)}`
    const { status, json } = await gql('query($h: Bytes32) {\n  block(hash: $h) { number }\n}', { h: unknown })
    expect(status).toBe(400)
    expect(json.data).toEqual({ block: null })
    expect(json.errors[0]).toMatchObject({
      message: `Exception while fetching data (/block) : Block hash ${unknown} was not found`,
      locations: [{ line: 2, column: 3 }],
      path: ['block'],
    })
  })

  it("answers a bad variable value with the variable's location and no data", async () => {
    const { status, json } = await gql('query($a: Address!) { block { account(address: $a) { balance } } }', {
      a: '0x1234',
    })
    expect(status).toBe(400)
    expect(json.data).toBeUndefined()
    expect(json.errors[0]).toMatchObject({
      message: "Variable 'a' has an invalid value: Unable to parse variable value 0x1234 as an Address",
      locations: [{ line: 1, column: 7 }],
    })
  })

  it('refuses a query nested past the depth limit', async () => {
    const query = `{ block { ${'parent { '.repeat(21)}number${' }'.repeat(21)} } }`
    const { status, json } = await gql(query)
    expect(status).toBe(400)
    expect(json.errors[0].message).toBe('maximum query depth exceeded 23 > 20')
  })

  it('keeps serving after malformed requests', async () => {
    const bad: [type: string, body: string, status: number][] = [
      ['application/json', '{"query": ', 400],
      ['application/json', '[{"query":"{ chainID }"}]', 400],
      ['application/json', '{"query": 42}', 400],
      ['application/json', '{"query":"{ chainID }","variables":[1]}', 400],
      ['application/json', '{"query":"{ chainID }","operationName":"Nope"}', 400],
      ['application/json', '', 400],
      ['application/graphql', '{ block '.repeat(5000), 400],
      ['application/graphql', '{ block(number: 18446744073709551616) { number } }', 400],
      ['application/graphql', '{ blocks(from: 5, to: 1) { number } }', 400],
      [
        'application/graphql',
        '{ block { ommerAt(index: 9007199254740993) { number } transactionAt(index: 3) { hash } } }',
        200,
      ],
    ]
    for (const [type, body, status] of bad) {
      const res = await fetch(graphqlUrl, { method: 'POST', headers: { 'content-type': type }, body })
      const json = (await res.json()) as Json
      expect([res.status, status === 400 ? typeof json.errors[0].message : json.errors]).toEqual([
        status,
        status === 400 ? 'string' : undefined,
      ])
    }
    expect(node.proc.exitCode).toBeNull()
    expect((await data('{ chainID }')).chainID).toBe('0x539')
  })

  it('refuses a query over the complexity limit', async () => {
    const { status, json } = await gql('{ block { transactions { block { transactions { block { number }}}}}}')
    expect(status).toBe(400)
    expect(json.errors[0].message).toBe('maximum query complexity exceeded 204 > 200')
  })
})

describe('GraphQL listener', () => {
  it('serves GET /graphql?query=', async () => {
    const res = await fetch(`${graphqlUrl}?query=${encodeURIComponent('{ block { number } }')}`)
    expect(res.status).toBe(200)
    expect(Number(((await res.json()) as { data: { block: { number: string } } }).data.block.number)).toBeGreaterThan(0)
  })

  it('serves GET /graphql with variables and operationName', async () => {
    const params = new URLSearchParams({
      query: 'query A { chainID } query B($n: Long) { block(number: $n) { number } }',
      operationName: 'B',
      variables: JSON.stringify({ n: 1 }),
    })
    const res = await fetch(`${graphqlUrl}?${params}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ data: { block: { number: '0x1' } } })
  })

  it('runs the operation POST names in operationName', async () => {
    const res = await fetch(graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query A { chainID } query B { block(number: 0) { number } }',
        operationName: 'A',
      }),
    })
    expect(await res.json()).toEqual({ data: { chainID: '0x539' } })
  })

  it('reads a body that is not JSON as a bare query', async () => {
    for (const type of ['application/graphql', 'text/plain']) {
      const res = await fetch(graphqlUrl, { method: 'POST', headers: { 'content-type': type }, body: '{ chainID }' })
      expect(await res.json()).toEqual({ data: { chainID: '0x539' } })
    }
  })

  it("serves /graphql/ as /graphql (Besu's own tests post there) with Besu's JSON content type", async () => {
    const post = await fetch(`${graphqlUrl}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/graphql; charset=utf-8' },
      body: '{ chainID }',
    })
    expect(post.status).toBe(200)
    expect(post.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await post.json()).toEqual({ data: { chainID: '0x539' } })
    const get = await fetch(`${graphqlUrl}/?query=${encodeURIComponent('{ chainID }')}`)
    expect(await get.json()).toEqual({ data: { chainID: '0x539' } })
    expect((await fetch(`${graphqlUrl}/foo`)).status).toBe(404)
  })

  it('redirects / to /graphql (308) and refuses other methods (405)', async () => {
    const root = await fetch(graphqlUrl.replace('/graphql', '/'), { method: 'POST', redirect: 'manual' })
    expect(root.status).toBe(308)
    expect(root.headers.get('location')).toBe('/graphql')
    const put = await fetch(graphqlUrl, { method: 'PUT', body: '{ chainID }' })
    expect(put.status).toBe(405)
  })

  it('is not served over WebSocket', async () => {
    const graphqlWs = new WebSocket(graphqlUrl.replace('http', 'ws'))
    const opened = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5000)
      graphqlWs.onopen = () => {
        clearTimeout(timer)
        resolve(true)
      }
      graphqlWs.onerror = graphqlWs.onclose = () => {
        clearTimeout(timer)
        resolve(false)
      }
    })
    graphqlWs.close()
    expect(opened).toBe(false)
    // The JSON-RPC WebSocket does not take GraphQL requests either.
    const rpcWs = new WebSocket(node.wsUrl)
    const answer = await new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer')), 5000)
      rpcWs.onopen = () => rpcWs.send(JSON.stringify({ query: '{ block { number } }' }))
      rpcWs.onmessage = (e) => {
        clearTimeout(timer)
        resolve(JSON.parse(String(e.data)))
      }
    })
    rpcWs.close()
    expect(answer.data).toBeUndefined()
    expect(answer.error.code).toBe(-32600)
  })

  it('logs where it listens, on the --graphql-http-host', () => {
    const port = new URL(graphqlUrl).port
    expect(node.output()).toContain(`http://127.0.0.1:${port}/graphql`)
  })

  it('refuses a Host outside the allowlist with 403', async () => {
    const res = await fetch(graphqlUrl, {
      method: 'POST',
      headers: { host: 'evil.example', 'content-type': 'application/json' },
      body: '{"query":"{ chainID }"}',
    })
    expect(res.status).toBe(403)
  })

  it('applies --graphql-http-cors-origins', async () => {
    const ok = await gql('{ chainID }', undefined, { origin: 'http://app.example' })
    expect(ok.status).toBe(200)
    const res = await fetch(graphqlUrl, {
      method: 'POST',
      headers: { origin: 'http://other.example' },
      body: '{"query":"{ chainID }"}',
    })
    expect(res.status).toBe(403)
  })
})
