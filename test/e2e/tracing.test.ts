/**
 * DEBUG and TRACE groups on the compiled binary: a token transfer traced with every tracer, an
 * exact struct-log expectation for a tiny storing contract, parity traces, raw getters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Transaction } from 'ethers'
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  keccak256,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { compileContract } from './contracts/compile.ts'
import { type StartedNode, startNode } from './harness.ts'

const source = new URL('./contracts/TraceToken.sol', import.meta.url).pathname
const token = compileContract(source, 'TraceToken')
const forwarder = compileContract(source, 'TraceForwarder')
/** PUSH1 0x2a PUSH1 0 SSTORE PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 0x20 PUSH1 0 RETURN, behind a 12-byte deployer. */
const STORE_INIT = '0x6010600c60003960106000f3602a60005560005460005260206000f3'
const RECIPIENT = '0x00000000000000000000000000000000000000b0'
/** JUMPDEST PUSH1 0 JUMP (loops until out of gas), behind a 12-byte deployer. */
const LOOP_INIT = '0x6004600c60003960046000f35b600056'

let node: StartedNode
let tokenAddress: `0x${string}`
let forwarderAddress: `0x${string}`
let storeAddress: `0x${string}`
let transferHash: `0x${string}`
let storeHash: `0x${string}`
let sender: `0x${string}`
let loopHash: `0x${string}`

const chain = () =>
  defineChain({
    id: 1337,
    name: 'basalt',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  })
const client = () => createPublicClient({ chain: chain(), transport: http(), pollingInterval: 50 })

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-http-api', 'ETH,NET,WEB3,DEBUG,TRACE'] })
  const account = privateKeyToAccount(node.config.accounts[5].privateKey as `0x${string}`)
  sender = account.address.toLowerCase() as `0x${string}`
  const wallet = createWalletClient({ account, chain: chain(), transport: http() })
  const deploy = async (bytecode: `0x${string}`, abi: unknown[] = []) => {
    const hash = await wallet.deployContract({ abi: abi as Abi, bytecode })
    return (await client().waitForTransactionReceipt({ hash })).contractAddress!
  }
  tokenAddress = await deploy(token.bytecode, token.abi)
  forwarderAddress = await deploy(forwarder.bytecode, forwarder.abi)
  storeAddress = await deploy(STORE_INIT)
  transferHash = await wallet.writeContract({
    address: tokenAddress,
    abi: token.abi as Abi,
    functionName: 'transfer',
    args: [RECIPIENT, 25n],
  })
  await client().waitForTransactionReceipt({ hash: transferHash })
  storeHash = await wallet.sendTransaction({ to: storeAddress, gas: 100_000n })
  await client().waitForTransactionReceipt({ hash: storeHash })
  const loopAddress = await deploy(LOOP_INIT)
  loopHash = await wallet.sendTransaction({ to: loopAddress, gas: 5_000_000n })
  await client().waitForTransactionReceipt({ hash: loopHash })
})
afterAll(async () => {
  await node?.cleanup()
})

const trace = (hash: string, config?: unknown) =>
  node.rpc<any>('debug_traceTransaction', config ? [hash, config] : [hash])

describe('debug_traceTransaction', () => {
  it('gives the exact struct logs of a small storing contract', async () => {
    const r = await trace(storeHash)
    expect(r.failed).toBe(false)
    expect(r.returnValue).toBe(`0x${'2a'.padStart(64, '0')}`)
    expect(r.structLogs.map((l: any) => l.op)).toEqual([
      'PUSH1',
      'PUSH1',
      'SSTORE',
      'PUSH1',
      'SLOAD',
      'PUSH1',
      'MSTORE',
      'PUSH1',
      'PUSH1',
      'RETURN',
    ])
    expect(r.structLogs.map((l: any) => l.gasCost)).toEqual([3, 3, 22100, 3, 100, 3, 6, 3, 3, 0])
    expect(r.structLogs[2].storage).toEqual({ [`0x${'0'.repeat(64)}`]: `0x${'2a'.padStart(64, '0')}` })
    const receipt = await client().getTransactionReceipt({ hash: storeHash })
    expect(r.gas).toBe(Number(receipt.gasUsed))
    // An empty config object (how benchmark harnesses ask) is the default struct logger too.
    expect(await trace(storeHash, {})).toEqual(r)
  })

  it('traces a token transfer with SSTOREs and a LOG3', async () => {
    const r = await trace(transferHash, { enableMemory: true })
    const ops = r.structLogs.map((l: any) => l.op)
    expect(ops.filter((o: string) => o === 'SSTORE')).toHaveLength(2)
    expect(ops).toContain('LOG3')
    expect(r.structLogs.some((l: any) => Array.isArray(l.memory))).toBe(true)
    expect(r.returnValue).toBe(`0x${'1'.padStart(64, '0')}`)
  })

  it('answers -32000 for an unknown transaction', async () => {
    const err = await trace(`0x${'1'.padStart(64, '0')}`).catch((e) => e as { code: number })
    expect(err.code).toBe(-32000)
  })

  it('returns the call tree with the callTracer, logs included on request', async () => {
    const r = await trace(transferHash, { tracer: 'callTracer', tracerConfig: { withLog: true } })
    const receipt = await client().getTransactionReceipt({ hash: transferHash })
    expect(r).toMatchObject({ type: 'CALL', from: sender, to: tokenAddress.toLowerCase(), value: '0x0' })
    expect(BigInt(r.gasUsed)).toBe(receipt.gasUsed)
    expect(r.logs).toHaveLength(1)
    expect(r.logs[0].topics[0]).toBe(keccak256(new TextEncoder().encode('Transfer(address,address,uint256)')))
  })

  it('returns touched state with the prestateTracer, and changes in diff mode', async () => {
    const pre = await trace(transferHash, { tracer: 'prestateTracer' })
    expect(Object.keys(pre)).toContain(tokenAddress.toLowerCase())
    expect(Object.keys(pre[tokenAddress.toLowerCase()].storage)).toHaveLength(2)
    const diff = await trace(transferHash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } })
    const post = diff.post[tokenAddress.toLowerCase()].storage
    expect(
      Object.values(post)
        .map((v: any) => BigInt(v))
        .sort(),
    ).toEqual([25n, 1_000_000n - 25n])
  })

  it('counts selectors with the 4byteTracer', async () => {
    expect(await trace(transferHash, { tracer: '4byteTracer' })).toEqual({ '0xa9059cbb-64': 1 })
  })

  it('gives parity traces with the flatCallTracer', async () => {
    const r = await trace(transferHash, { tracer: 'flatCallTracer' })
    expect(r).toHaveLength(1)
    expect(r[0]).toMatchObject({ type: 'call', traceAddress: [], subtraces: 0, transactionHash: transferHash })
  })

  it('refuses an unknown tracer', async () => {
    const err = await trace(transferHash, { tracer: 'nopeTracer' }).catch((e) => e as { code: number })
    expect(err.code).toBe(-32602)
  })
})

describe('debug_traceBlockByNumber and debug_traceBlockByHash', () => {
  it('trace every transaction of a block with its hash', async () => {
    const receipt = await client().getTransactionReceipt({ hash: transferHash })
    const byNumber = await node.rpc<any[]>('debug_traceBlockByNumber', [
      `0x${receipt.blockNumber.toString(16)}`,
      { tracer: 'callTracer' },
    ])
    const byHash = await node.rpc<any[]>('debug_traceBlockByHash', [receipt.blockHash, { tracer: 'callTracer' }])
    expect(byNumber).toEqual(byHash)
    expect(byNumber.map((e) => e.txHash)).toEqual([transferHash])
  })

  it('answers {txHash, error} for a transaction whose trace runs past its timeout', async () => {
    const receipt = await client().getTransactionReceipt({ hash: loopHash })
    const n = `0x${receipt.blockNumber.toString(16)}`
    const entries = await node.rpc<any[]>('debug_traceBlockByNumber', [n, { tracer: 'callTracer', timeout: '100ms' }])
    expect(entries).toEqual([{ txHash: loopHash, error: 'execution timeout' }])
    const err = (await trace(loopHash, { timeout: '100ms' }).catch((e) => e)) as { code: number; message: string }
    expect({ code: err.code, message: err.message }).toEqual({
      code: -32000,
      message: 'debug_traceTransaction: execution timeout',
    })
  })

  it('refuses the genesis block', async () => {
    const err = (await node.rpc('debug_traceBlockByNumber', ['0x0']).catch((e) => e)) as { code: number }
    expect(err.code).toBe(-32000)
  })
})

describe('debug_traceCall', () => {
  it('traces a nested call made at a block', async () => {
    const data = encodeFunctionData({
      abi: forwarder.abi as Abi,
      functionName: 'balanceIn',
      args: [tokenAddress, RECIPIENT],
    })
    const r = await node.rpc<any>('debug_traceCall', [
      { to: forwarderAddress, data },
      'latest',
      { tracer: 'callTracer' },
    ])
    expect(r.calls).toHaveLength(1)
    expect(r.calls[0]).toMatchObject({ type: 'STATICCALL', to: tokenAddress.toLowerCase() })
    expect(BigInt(r.output)).toBe(25n)
  })
})

describe('debug_getRaw*', () => {
  it('returns the signed transaction bytes', async () => {
    const raw = await node.rpc<string>('debug_getRawTransaction', [transferHash])
    expect(keccak256(raw as `0x${string}`)).toBe(transferHash)
    expect(Transaction.from(raw).to?.toLowerCase()).toBe(tokenAddress.toLowerCase())
  })

  it('returns header, block and receipts RLP', async () => {
    const block = await client().getBlock({ blockTag: 'latest' })
    const header = await node.rpc<string>('debug_getRawHeader', ['latest'])
    expect(keccak256(header as `0x${string}`)).toBe(block.hash)
    expect((await node.rpc<string>('debug_getRawBlock', ['latest'])).length).toBeGreaterThan(header.length)
    expect(await node.rpc<string[]>('debug_getRawReceipts', ['latest'])).toHaveLength(1)
    expect(await node.rpc('debug_getRawTransaction', [`0x${'1'.padStart(64, '0')}`])).toBeNull()
  })
})

describe('trace_*', () => {
  it('trace_transaction lists the flat traces with block fields', async () => {
    const r = await node.rpc<any[]>('trace_transaction', [transferHash])
    const receipt = await client().getTransactionReceipt({ hash: transferHash })
    expect(r[0]).toMatchObject({
      action: { callType: 'call', from: sender, to: tokenAddress.toLowerCase(), value: '0x0' },
      blockHash: receipt.blockHash,
      blockNumber: Number(receipt.blockNumber),
      subtraces: 0,
      traceAddress: [],
      transactionPosition: 0,
      type: 'call',
    })
    expect(r[0].result.output).toBe(`0x${'1'.padStart(64, '0')}`)
  })

  it('trace_replayTransaction gives output, trace and state diff', async () => {
    const r = await node.rpc<any>('trace_replayTransaction', [transferHash, ['trace', 'stateDiff']])
    expect(r.output).toBe(`0x${'1'.padStart(64, '0')}`)
    expect(r.vmTrace).toBeNull()
    expect(r.trace).toHaveLength(1)
    const storage = r.stateDiff[tokenAddress.toLowerCase()].storage
    expect(Object.values(storage).some((d: any) => d['*'] && BigInt(d['*'].to) === 25n)).toBe(true)
    expect(r.stateDiff[sender].nonce['*']).toBeDefined()
  })

  it('trace_replayTransaction gives the VM trace of the token code when asked', async () => {
    const r = await node.rpc<any>('trace_replayTransaction', [transferHash, ['vmTrace']])
    expect(r.trace).toEqual([])
    expect(r.vmTrace.code).toBe(await client().getCode({ address: tokenAddress }))
    // solc's prologue: PUSH1 0x80, PUSH1 0x40, MSTORE (the free memory pointer).
    expect(r.vmTrace.ops.slice(0, 3)).toEqual([
      { cost: 3, ex: { mem: null, push: ['0x80'], store: null, used: expect.any(Number) }, pc: 0, sub: null },
      { cost: 3, ex: { mem: null, push: ['0x40'], store: null, used: expect.any(Number) }, pc: 2, sub: null },
      {
        cost: 12,
        ex: { mem: { data: `0x${'80'.padStart(64, '0')}`, off: 64 }, push: [], store: null, used: expect.any(Number) },
        pc: 4,
        sub: null,
      },
    ])
    expect(r.vmTrace.ops.some((o: any) => o.ex?.store !== null && o.ex?.store !== undefined)).toBe(true)
  })

  it('trace_block, trace_filter and trace_replayBlockTransactions agree on the block', async () => {
    const receipt = await client().getTransactionReceipt({ hash: transferHash })
    const n = `0x${receipt.blockNumber.toString(16)}`
    const block = await node.rpc<any[]>('trace_block', [n])
    // The transaction's traces, then Besu's block reward trace: 0 on the dev chain, to the coinbase.
    const header = await client().getBlock({ blockNumber: receipt.blockNumber })
    expect(block).toEqual([
      ...(await node.rpc<any[]>('trace_transaction', [transferHash])),
      expect.objectContaining({
        action: { author: header.miner.toLowerCase(), rewardType: 'block', value: '0x0' },
        blockNumber: Number(receipt.blockNumber),
        type: 'reward',
      }),
    ])
    // Up to the next transaction's block: a range with a block that must not match, short of the
    // 5,000,000-gas loop, whose per-opcode replay alone is most of a second.
    const next = await client().getTransactionReceipt({ hash: storeHash })
    expect(next.blockNumber > receipt.blockNumber).toBe(true)
    const filtered = await node.rpc<any[]>('trace_filter', [
      { fromBlock: n, toBlock: `0x${next.blockNumber.toString(16)}`, toAddress: [tokenAddress] },
    ])
    expect(filtered.map((t) => t.transactionHash)).toEqual([transferHash])
    const replayed = await node.rpc<any[]>('trace_replayBlockTransactions', [n, ['trace']])
    expect(replayed).toEqual([
      {
        output: `0x${'1'.padStart(64, '0')}`,
        stateDiff: null,
        trace: [expect.any(Object)],
        transactionHash: transferHash,
        vmTrace: null,
      },
    ])
  })

  it('trace_call traces a message without a transaction', async () => {
    const data = encodeFunctionData({ abi: token.abi as Abi, functionName: 'balanceOf', args: [RECIPIENT] })
    const r = await node.rpc<any>('trace_call', [{ to: tokenAddress, data }, ['trace'], 'latest'])
    expect(BigInt(r.output)).toBe(25n)
    expect(r.trace[0].action.to).toBe(tokenAddress.toLowerCase())
  })
})

describe('group enabling', () => {
  it('answers -32604 for DEBUG methods on a node without the group (the dev default)', async () => {
    const plain = await startNode()
    try {
      const err = (await plain.rpc('debug_traceTransaction', [transferHash]).catch((e) => e)) as { code: number }
      expect(err.code).toBe(-32604)
    } finally {
      await plain.cleanup()
    }
  })
})
