/**
 * The dev chain's test controls (evm_*, hardhat_*, anvil_*) on the compiled binary, each checked by
 * its effect on the chain: blocks, timestamps, balances, code, storage, the pool, and what a
 * restart and a trace of a later block see.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { compileContract } from './contracts/compile.ts'
import { type StartedNode, signTransfer, startNode, writeCancunGenesis } from './harness.ts'

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const WHALE = '0x00000000000000000000000000000000000f00d5'
const TARGET = '0x000000000000000000000000000000000000c0de'
/** Runtime code: stores CALLVALUE+1 at slot 0 (PUSH1 1, CALLVALUE, ADD, PUSH1 0, SSTORE, STOP). */
const STORE_CODE = '0x600134016000550000'
const APIS = 'ETH,NET,WEB3,EVM,HARDHAT,ANVIL,DEBUG,TXPOOL'

interface Block {
  number: string
  timestamp: string
  hash: string
  transactions: string[]
}

let node: StartedNode

async function head(n = node): Promise<Block> {
  return n.rpc<Block>('eth_getBlockByNumber', ['latest', false])
}

async function rpcError(method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  try {
    await node.rpc(method, params)
  } catch (e) {
    return { code: (e as { code: number }).code, message: (e as Error).message }
  }
  throw new Error(`${method} did not fail`)
}

async function receipt(hash: string): Promise<{ status: string; from: string; blockNumber: string } | null> {
  for (let i = 0; i < 100; i++) {
    const r = await node.rpc<{ status: string; from: string; blockNumber: string } | null>(
      'eth_getTransactionReceipt',
      [hash],
    )
    if (r) return r
    await Bun.sleep(20)
  }
  return null
}

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-http-api', APIS, '--rpc-ws-enabled=false'] })
})
afterAll(async () => {
  await node?.cleanup()
})

describe('dev toolkit: identity', () => {
  it('announces an Anvil-compatible version naming Basalt, and the three groups', async () => {
    const version = await node.rpc<string>('web3_clientVersion')
    expect(version.startsWith('anvil/')).toBe(true)
    expect(version).toContain('basalt/v')
    const modules = await node.rpc<Record<string, string>>('rpc_modules')
    expect(Object.keys(modules)).toEqual(expect.arrayContaining(['evm', 'hardhat', 'anvil']))
  })

  it('answers anvil_nodeInfo, the metadata and eth_getAccountInfo from the chain', async () => {
    const b = await head()
    const info = await node.rpc<{
      currentBlockNumber: number
      currentBlockHash: string
      environment: { chainId: number }
    }>('anvil_nodeInfo')
    expect(info.currentBlockNumber).toBe(Number(b.number))
    expect(info.currentBlockHash).toBe(b.hash)
    expect(info.environment.chainId).toBe(1337)
    const meta = await node.rpc<{ chainId: number; latestBlockHash: string; instanceId: string }>('hardhat_metadata')
    expect(meta).toMatchObject({ chainId: 1337, latestBlockHash: b.hash })
    expect(await node.rpc('anvil_metadata')).toMatchObject({ instanceId: meta.instanceId })
    expect(await node.rpc('eth_getAccountInfo', [DEV0, 'latest'])).toEqual({
      balance: await node.rpc('eth_getBalance', [DEV0, 'latest']),
      nonce: await node.rpc('eth_getTransactionCount', [DEV0, 'latest']),
      code: '0x',
    })
  })
})

describe('dev toolkit: mining and time', () => {
  it('hardhat_mine seals count blocks spaced by the interval; anvil_mine answers null', async () => {
    const before = await head()
    expect(await node.rpc('hardhat_mine', ['0x3', '0x64'])).toBe(true)
    const after = await head()
    expect(Number(after.number)).toBe(Number(before.number) + 3)
    const second = await node.rpc<Block>('eth_getBlockByNumber', [
      `0x${(Number(after.number) - 1).toString(16)}`,
      false,
    ])
    expect(Number(after.timestamp) - Number(second.timestamp)).toBe(100)
    expect(await node.rpc('anvil_mine', [])).toBeNull()
    expect(Number((await head()).number)).toBe(Number(after.number) + 1)
  })

  it('evm_increaseTime moves the next block, evm_setNextBlockTimestamp fixes it, a past one is refused', async () => {
    const before = Number((await head()).timestamp)
    expect(await node.rpc('evm_increaseTime', [3600])).toBeGreaterThanOrEqual(3600)
    expect(await node.rpc('evm_mine')).toBe('0x0')
    expect(Number((await head()).timestamp)).toBeGreaterThanOrEqual(before + 3600)
    const target = Number((await head()).timestamp) + 1000
    expect(await node.rpc('evm_setNextBlockTimestamp', [`0x${target.toString(16)}`])).toBeNull()
    await node.rpc('evm_mine')
    expect(Number((await head()).timestamp)).toBe(target)
    // The clock moved with it: the following block is not earlier.
    await node.rpc('evm_mine')
    expect(Number((await head()).timestamp)).toBeGreaterThan(target)
    const err = await rpcError('evm_setNextBlockTimestamp', [target])
    expect(err.code).toBe(-32602)
    expect(await node.rpc('evm_mine', [target + 5000])).toBe('0x0')
    expect(Number((await head()).timestamp)).toBe(target + 5000)
  })

  it('refuses times past the uint64 block timestamp, leaving the chain able to seal', async () => {
    const max = 2n ** 64n - 1n
    const hex = (n: bigint) => `0x${n.toString(16)}`
    const refusals: [string, unknown[]][] = [
      ['evm_mine', [hex(max + 1n)]],
      ['evm_mine', [{ timestamp: hex(2n ** 256n) }]],
      ['evm_mine_detailed', [hex(2n ** 256n - 1n)]],
      ['anvil_mine_detailed', [hex(max + 1n)]],
      ['evm_setNextBlockTimestamp', [hex(max + 1n)]],
      ['anvil_setNextBlockTimestamp', [hex(2n ** 300n)]],
      ['evm_setTime', [hex(max + 1n)]],
      ['anvil_setTime', [hex(2n ** 256n)]],
      ['evm_increaseTime', [hex(max)]],
      ['anvil_increaseTime', [hex(2n ** 256n)]],
      ['anvil_setBlockTimestampInterval', [hex(max)]],
      ['hardhat_mine', ['0x3', hex(max / 2n)]],
    ]
    const before = await head()
    for (const [method, params] of refusals) {
      const err = await rpcError(method, params)
      expect({ method, code: err.code, message: err.message }).toEqual({
        method,
        code: -32602,
        message: expect.stringContaining('above the largest block timestamp 18446744073709551615'),
      })
      // Nothing of the refused call stays: the next block takes the chain's own time.
      expect(await node.rpc('evm_mine')).toBe('0x0')
      const block = await head()
      expect(BigInt(block.timestamp)).toBeLessThan(BigInt(Math.floor(Date.now() / 1000)) + 1_000_000n)
    }
    expect(Number((await head()).number)).toBe(Number(before.number) + refusals.length)
    // The largest timestamp itself is a valid block; the one after it is refused, and the chain
    // goes on once the time is set back.
    const snapshot = await node.rpc<string>('evm_snapshot')
    expect(await node.rpc('evm_mine', [hex(max)])).toBe('0x0')
    expect(BigInt((await head()).timestamp)).toBe(max)
    expect((await rpcError('evm_mine', [])).message).toContain('above the largest block timestamp')
    // Automine cannot seal a sent transaction either: one warning line, no failure, the node up.
    const nonce = Number(await node.rpc('eth_getTransactionCount', [DEV0, 'pending']))
    const sent = await node.rpc<string>('eth_sendRawTransaction', [
      await signTransfer(KEY, { nonce, maxFeePerGas: 10n ** 11n }),
    ])
    await Bun.sleep(200)
    expect(await node.rpc('eth_getTransactionReceipt', [sent])).toBeNull()
    expect(node.output()).toContain('not sealing')
    expect(node.output()).not.toContain('sealing failed')
    expect(await node.rpc('evm_revert', [snapshot])).toBe(true)
    expect(await node.rpc('evm_mine')).toBe('0x0')
  })

  it('anvil_setBlockTimestampInterval spaces blocks until removed', async () => {
    await node.rpc('anvil_setBlockTimestampInterval', [7])
    const a = Number((await head()).timestamp)
    await node.rpc('evm_mine')
    await node.rpc('evm_mine')
    expect(Number((await head()).timestamp)).toBe(a + 14)
    expect(await node.rpc('anvil_removeBlockTimestampInterval')).toBe(true)
    expect(await node.rpc('anvil_removeBlockTimestampInterval')).toBe(false)
  })

  it('with automine off a transaction waits in the pool until evm_mine', async () => {
    await node.rpc('evm_setAutomine', [false])
    expect(await node.rpc('anvil_getAutomine')).toBe(false)
    const before = Number((await head()).number)
    const nonce = Number(await node.rpc('eth_getTransactionCount', [DEV0, 'latest']))
    const hash = await node.rpc<string>('eth_sendRawTransaction', [
      await signTransfer(KEY, { nonce, maxFeePerGas: 10n ** 11n }),
    ])
    await Bun.sleep(100)
    expect(Number((await head()).number)).toBe(before)
    expect(await node.rpc('eth_getTransactionReceipt', [hash])).toBeNull()
    await node.rpc('evm_mine')
    const b = await head()
    expect(b.transactions).toEqual([hash])
    await node.rpc('evm_setAutomine', [true])
    expect(await node.rpc('hardhat_getAutomine')).toBe(true)
  })
})

describe('dev toolkit: snapshots', () => {
  it('evm_revert removes later blocks, their transactions and state edits; an id is used once', async () => {
    const start = await head()
    const balance = await node.rpc<string>('eth_getBalance', [TARGET, 'latest'])
    const id = await node.rpc<string>('evm_snapshot')
    const nonce = Number(await node.rpc('eth_getTransactionCount', [DEV0, 'latest']))
    const hash = await node.rpc<string>('eth_sendRawTransaction', [
      await signTransfer(KEY, { nonce, maxFeePerGas: 10n ** 11n }),
    ])
    expect(await receipt(hash)).not.toBeNull()
    await node.rpc('hardhat_setBalance', [WHALE, '0x1000'])
    const inner = await node.rpc<string>('evm_snapshot')
    await node.rpc('hardhat_mine', ['0x5'])
    expect(await node.rpc('evm_revert', [inner])).toBe(true)
    expect(await node.rpc('eth_getBalance', [WHALE, 'latest'])).toBe('0x1000')
    expect(await node.rpc('evm_revert', [id])).toBe(true)
    const after = await head()
    expect(after.hash).toBe(start.hash)
    expect(await node.rpc('eth_getTransactionReceipt', [hash])).toBeNull()
    expect(await node.rpc('eth_getBalance', [TARGET, 'latest'])).toBe(balance)
    expect(await node.rpc('eth_getBalance', [WHALE, 'latest'])).toBe('0x0')
    expect(await node.rpc('evm_revert', [id])).toBe(false)
    expect(await node.rpc('evm_revert', [inner])).toBe(false)
    // The chain goes on from the snapshot's head.
    expect(
      await receipt(
        await node.rpc('eth_sendRawTransaction', [await signTransfer(KEY, { nonce, maxFeePerGas: 10n ** 11n })]),
      ),
    ).toMatchObject({
      blockNumber: `0x${(Number(start.number) + 1).toString(16)}`,
    })
  })

  it('restores the pool and the time settings it was taken with', async () => {
    await node.rpc('evm_setAutomine', [false])
    const nonce = Number(await node.rpc('eth_getTransactionCount', [DEV0, 'latest']))
    const pooled = await node.rpc<string>('eth_sendRawTransaction', [
      await signTransfer(KEY, { nonce, maxFeePerGas: 10n ** 11n }),
    ])
    const id = await node.rpc<string>('evm_snapshot')
    await node.rpc('evm_mine')
    await node.rpc('evm_increaseTime', [86_400])
    expect(await node.rpc('evm_revert', [id])).toBe(true)
    const status = await node.rpc<{ pending: string }>('txpool_status')
    expect(Number(status.pending)).toBe(1)
    expect(await node.rpc('eth_getTransactionReceipt', [pooled])).toBeNull()
    const before = Number((await head()).timestamp)
    await node.rpc('evm_mine')
    const b = await head()
    expect(b.transactions).toEqual([pooled])
    expect(Number(b.timestamp)).toBeLessThan(before + 86_400)
    await node.rpc('evm_setAutomine', [true])
  })
})

describe('dev toolkit: state edits', () => {
  it('sets balance, nonce, code and storage, and adds balance', async () => {
    expect(await node.rpc('hardhat_setBalance', [WHALE, '0xde0b6b3a7640000'])).toBe(true)
    expect(await node.rpc('anvil_addBalance', [WHALE, '0x1'])).toBeNull()
    expect(await node.rpc('eth_getBalance', [WHALE, 'latest'])).toBe('0xde0b6b3a7640001')
    expect(await node.rpc('anvil_setNonce', [WHALE, '0x7'])).toBeNull()
    expect(await node.rpc('eth_getTransactionCount', [WHALE, 'latest'])).toBe('0x7')
    const err = await rpcError('hardhat_setNonce', [WHALE, '0x1'])
    expect(err).toMatchObject({ code: -32602 })
    expect(err.message).toContain('must not be smaller than the existing nonce (7)')
    expect(await node.rpc('hardhat_setCode', [TARGET, STORE_CODE])).toBe(true)
    expect(await node.rpc('eth_getCode', [TARGET, 'latest'])).toBe(STORE_CODE)
    expect(await node.rpc('anvil_setStorageAt', [TARGET, '0x5', `0x${'00'.repeat(31)}2a`])).toBe(true)
    expect(await node.rpc('eth_getStorageAt', [TARGET, '0x5', 'latest'])).toBe(`0x${'00'.repeat(31)}2a`)
    // The pool sees the edited state at once: a transaction at the new nonce is accepted.
    expect(await node.rpc('eth_getAccountInfo', [WHALE])).toMatchObject({ nonce: '0x7' })
  })

  it('sends as an impersonated account; the code it set runs, and a trace of the block replays it', async () => {
    const refused = await rpcError('eth_sendTransaction', [{ from: WHALE, to: TARGET }])
    expect(refused.code).toBe(-32604)
    expect(await node.rpc('hardhat_impersonateAccount', [WHALE])).toBe(true)
    const hash = await node.rpc<string>('eth_sendTransaction', [{ from: WHALE, to: TARGET, value: '0x10' }])
    const r = await receipt(hash)
    expect(r).toMatchObject({ status: '0x1', from: WHALE })
    expect(await node.rpc('eth_getTransactionCount', [WHALE, 'latest'])).toBe('0x8')
    expect(await node.rpc('eth_getStorageAt', [TARGET, '0x0', 'latest'])).toBe(`0x${'00'.repeat(31)}11`)
    const trace = await node.rpc<{ from: string; to: string; value: string }>('debug_traceTransaction', [
      hash,
      { tracer: 'callTracer' },
    ])
    expect(trace).toMatchObject({ from: WHALE, to: TARGET, value: '0x10' })
    await node.rpc('anvil_stopImpersonatingAccount', [WHALE])
    expect((await rpcError('eth_sendTransaction', [{ from: WHALE, to: TARGET }])).code).toBe(-32604)
    await node.rpc('anvil_autoImpersonateAccount', [true])
    expect(await receipt(await node.rpc('eth_sendTransaction', [{ from: WHALE, to: TARGET }]))).toMatchObject({
      status: '0x1',
    })
    await node.rpc('anvil_autoImpersonateAccount', [false])
    const unsigned = await node.rpc<string>('eth_sendUnsignedTransaction', [{ from: WHALE, to: TARGET, value: '0x1' }])
    expect(await receipt(unsigned)).toMatchObject({ status: '0x1', from: WHALE })
    // An impersonated contract sends too (EIP-3607 lifted for it, as in Hardhat and Anvil), its code
    // stays, and a trace of its block replays it.
    await node.rpc('anvil_setBalance', [TARGET, '0xde0b6b3a7640000'])
    await node.rpc('hardhat_impersonateAccount', [TARGET])
    const fromContract = await node.rpc<string>('eth_sendTransaction', [{ from: TARGET, to: WHALE, value: '0x2' }])
    expect(await receipt(fromContract)).toMatchObject({ status: '0x1', from: TARGET })
    expect(await node.rpc('eth_getCode', [TARGET, 'latest'])).toBe(STORE_CODE)
    expect(await node.rpc('debug_traceTransaction', [fromContract, { tracer: 'callTracer' }])).toMatchObject({
      from: TARGET,
      to: WHALE,
      value: '0x2',
    })
    expect(await node.rpc('eth_call', [{ from: TARGET, to: WHALE, value: '0x1' }, 'latest'])).toBe('0x')
    await node.rpc('hardhat_stopImpersonatingAccount', [TARGET])
  })

  it('sets the coinbase, the next base fee and the block gas limit of the blocks to come', async () => {
    const coinbase = '0x00000000000000000000000000000000000c0b1e'
    expect(await node.rpc('anvil_setCoinbase', [coinbase])).toBeNull()
    expect(await node.rpc('hardhat_setNextBlockBaseFeePerGas', ['0x3b9aca00'])).toBe(true)
    expect(await node.rpc('evm_setBlockGasLimit', ['0x1c9c380'])).toBe(true)
    const randao = `0x${'ab'.repeat(32)}`
    expect(await node.rpc('hardhat_setPrevRandao', [randao])).toBe(true)
    await node.rpc('evm_mine')
    const b = await node.rpc<{ miner: string; baseFeePerGas: string; gasLimit: string; mixHash: string; hash: string }>(
      'eth_getBlockByNumber',
      ['latest', false],
    )
    expect(b).toMatchObject({ miner: coinbase, baseFeePerGas: '0x3b9aca00', gasLimit: '0x1c9c380', mixHash: randao })
    await node.rpc('evm_mine')
    expect((await head()).hash).not.toBe(b.hash)
    const next = await node.rpc<{ mixHash: string; baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false])
    expect(next.baseFeePerGas).not.toBe('0x3b9aca00')
  })

  it('anvil_setMinGasPrice raises the price the pool accepts', async () => {
    const nonce = Number(await node.rpc('eth_getTransactionCount', [DEV0, 'latest']))
    expect(await node.rpc('anvil_setMinGasPrice', ['0x174876e800'])).toBeNull()
    const cheap = await signTransfer(KEY, { nonce, to: WHALE, maxFeePerGas: 10n ** 10n })
    expect((await rpcError('eth_sendRawTransaction', [cheap])).code).toBe(-32009)
    await node.rpc('anvil_setMinGasPrice', ['0x3e8'])
    expect(await receipt(await node.rpc<string>('eth_sendRawTransaction', [cheap]))).toMatchObject({ status: '0x1' })
  })

  it('evm_setIntervalMining seals empty blocks every interval until set to 0', async () => {
    await node.rpc('evm_setAutomine', [false])
    const start = Number((await head()).number)
    await node.rpc('evm_setIntervalMining', [1])
    let n = start
    for (let i = 0; i < 60 && n < start + 2; i++) {
      await Bun.sleep(100)
      n = Number((await head()).number)
    }
    expect(n).toBeGreaterThanOrEqual(start + 2)
    await node.rpc('evm_setIntervalMining', [0])
    await node.rpc('evm_setAutomine', [true])
    const stopped = Number((await head()).number)
    await Bun.sleep(1300)
    expect(Number((await head()).number)).toBe(stopped)
  }, 15_000)

  it('an interval longer than the timers hold (about 24.8 days) seals nothing now', async () => {
    const start = Number((await head()).number)
    // 2^40 s and 2^70 s: a timer set past 2^31 - 1 ms fires after 1 ms, a block every millisecond.
    for (const seconds of ['0x10000000000', '0x400000000000000000']) {
      await node.rpc('evm_setIntervalMining', [seconds])
      expect(await node.rpc('anvil_getIntervalMining')).toBe(Number(BigInt(seconds)))
      await Bun.sleep(600)
      expect(Number((await head()).number)).toBe(start)
    }
    await node.rpc('evm_setIntervalMining', [0])
    expect(await node.rpc('anvil_getIntervalMining')).toBeNull()
  })

  it('keeps nonces within 64 bits: a larger one is refused, an account at 2^64 - 1 can send nothing', async () => {
    const account = '0x00000000000000000000000000000000000a11ce'
    expect(await rpcError('anvil_setNonce', [account, `0x1${'0'.repeat(16)}`])).toEqual({
      code: -32602,
      message: 'anvil_setNonce: Invalid params: nonce 18446744073709551616 does not fit 64 bits',
    })
    await node.rpc('anvil_setBalance', [account, '0xde0b6b3a7640000'])
    await node.rpc('anvil_setNonce', [account, `0x${'f'.repeat(16)}`])
    expect(await node.rpc('eth_getTransactionCount', [account, 'latest'])).toBe(`0x${'f'.repeat(16)}`)
    await node.rpc('anvil_impersonateAccount', [account])
    expect(await rpcError('eth_sendTransaction', [{ from: account, to: TARGET, value: '0x1' }])).toEqual({
      code: -32000,
      message: `eth_sendTransaction: nonce has max value: address ${account}, nonce: 18446744073709551615`,
    })
    await node.rpc('anvil_stopImpersonatingAccount', [account])
    expect(node.output()).not.toContain('method failed')
  })

  it('drops pooled transactions', async () => {
    await node.rpc('evm_setAutomine', [false])
    const nonce = Number(await node.rpc('eth_getTransactionCount', [DEV0, 'latest']))
    const a = await node.rpc<string>('eth_sendRawTransaction', [
      await signTransfer(KEY, { nonce, maxFeePerGas: 10n ** 11n }),
    ])
    expect(await node.rpc('anvil_dropTransaction', [a])).toBe(a)
    expect(await node.rpc('anvil_dropTransaction', [a])).toBeNull()
    await node.rpc('eth_sendRawTransaction', [await signTransfer(KEY, { nonce, maxFeePerGas: 10n ** 11n })])
    expect(await node.rpc('anvil_dropAllTransactions')).toBeNull()
    expect(Number((await node.rpc<{ pending: string }>('txpool_status')).pending)).toBe(0)
    await node.rpc('evm_setAutomine', [true])
  })
})

describe('dev toolkit: anvil_dealERC20', () => {
  it('finds the balance slot of a token and sets it', async () => {
    const { bytecode } = compileContract(new URL('./contracts/TraceToken.sol', import.meta.url).pathname, 'TraceToken')
    await node.rpc('anvil_impersonateAccount', [DEV0])
    const r = await receipt(
      await node.rpc<string>('eth_sendTransaction', [{ from: DEV0, data: bytecode, gas: '0x200000' }]),
    )
    const token = (r as unknown as { contractAddress: string }).contractAddress
    expect(await node.rpc('anvil_dealERC20', [token, WHALE, '0x3e8'])).toBeNull()
    const balanceOf = `0x70a08231${WHALE.slice(2).padStart(64, '0')}`
    expect(BigInt(await node.rpc<string>('eth_call', [{ to: token, data: balanceOf }, 'latest']))).toBe(1000n)
    const err = await rpcError('anvil_dealERC20', [TARGET, WHALE, '0x1'])
    expect(err.code).toBe(-32000)
    await node.rpc('anvil_stopImpersonatingAccount', [DEV0])
  })
})

describe('dev toolkit: state dumps', () => {
  it('anvil_dumpState on one node and anvil_loadState on another carry the whole state', async () => {
    const dump = await node.rpc<string>('anvil_dumpState')
    const other = await startNode({ args: ['--rpc-ws-enabled=false'] })
    try {
      expect(await other.rpc('eth_getCode', [TARGET, 'latest'])).toBe('0x')
      expect(await other.rpc('anvil_loadState', [dump])).toBe(true)
      for (const [method, params] of [
        ['eth_getCode', [TARGET, 'latest']],
        ['eth_getStorageAt', [TARGET, '0x5', 'latest']],
        ['eth_getBalance', [WHALE, 'latest']],
        ['eth_getTransactionCount', [WHALE, 'latest']],
      ] as const) {
        expect(await other.rpc(method, [...params])).toEqual(await node.rpc(method, [...params]))
      }
      expect((await other.rpc<{ code: number }[]>('anvil_loadState', ['0x1234']).catch((e) => [e]))[0].code).toBe(
        -32602,
      )
    } finally {
      await other.cleanup()
    }
  })

  it('--dump-state writes the state on stop and --load-state reads it at start, Anvil accounts too', async () => {
    const file = join(node.dir, 'state.json')
    const first = await startNode({ args: ['--rpc-ws-enabled=false', '--dump-state', file] })
    await first.rpc('anvil_setBalance', [WHALE, '0x77'])
    await first.cleanup()
    const second = await startNode({ args: ['--rpc-ws-enabled=false', '--load-state', file] })
    try {
      expect(await second.rpc('eth_getBalance', [WHALE, 'latest'])).toBe('0x77')
    } finally {
      await second.cleanup()
    }
    const anvilFile = join(node.dir, 'anvil-state.json')
    writeFileSync(
      anvilFile,
      JSON.stringify({ accounts: { [WHALE]: { balance: '0x5', nonce: 2, code: '0x00', storage: { '0x1': '0x9' } } } }),
    )
    const third = await startNode({ args: ['--rpc-ws-enabled=false', '--load-state', anvilFile] })
    try {
      expect(await third.rpc('eth_getAccountInfo', [WHALE])).toEqual({ balance: '0x5', nonce: '0x2', code: '0x00' })
      expect(await third.rpc('eth_getStorageAt', [WHALE, '0x1', 'latest'])).toBe(`0x${'00'.repeat(31)}09`)
    } finally {
      await third.cleanup()
    }
  })
})

describe('dev toolkit: restarts', () => {
  it('keeps state edits across a restart', async () => {
    await node.rpc('hardhat_setBalance', [WHALE, '0x4242'])
    await node.stop()
    const again = await startNode({ dataPath: node.dataPath, args: ['--rpc-http-api', APIS, '--rpc-ws-enabled=false'] })
    try {
      expect(await again.rpc('eth_getBalance', [WHALE, 'latest'])).toBe('0x4242')
      expect(await again.rpc('eth_getCode', [TARGET, 'latest'])).toBe(STORE_CODE)
    } finally {
      await again.cleanup()
    }
  })
})

describe('dev toolkit on a chain from a genesis file', () => {
  it('is off unless asked for, and the version stays Besu-shaped (also with --anvil-client-version=false)', async () => {
    const dir = node.dir
    const genesisFile = join(dir, 'genesis.json')
    writeCancunGenesis(genesisFile)
    const plain = await startNode({ args: ['--anvil-client-version=false', '--rpc-ws-enabled=false'] })
    try {
      expect((await plain.rpc<string>('web3_clientVersion')).startsWith('basalt/v')).toBe(true)
      expect(await plain.rpc('hardhat_mine', ['0x1'])).toBe(true)
    } finally {
      await plain.cleanup()
    }
    const custom = await startNode({ args: ['--genesis-file', genesisFile, '--rpc-ws-enabled=false'] })
    try {
      expect((await custom.rpc<string>('web3_clientVersion')).startsWith('basalt/')).toBe(true)
      const res = await custom.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] })
      expect(res.json.error).toEqual({ code: -32604, message: 'Method not enabled' })
    } finally {
      await custom.cleanup()
    }
  })
})
