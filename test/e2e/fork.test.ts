/**
 * Forking (`--fork-url`): node B starts on top of node A's chain over loopback, sees A's balances,
 * code and storage, keeps its own transactions to itself, replays its blocks on the same fetched
 * values, and restarts on its data path without A.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { tmpdir } from 'node:os'
import { BASALT_BIN, runProcess, type StartedNode, startNode } from './harness.ts'

const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const PAYEE = '0x00000000000000000000000000000000000000aa'
const STRANGER = '0x00000000000000000000000000000000000000bb'
/**
 * Init code: stores 42 at slot 0 and deploys a runtime that, called with a word, stores it at slot
 * 0, and called without data returns slot 0.
 */
const RUNTIME = '0x3615600c57600035600055005b60005460005260206000f3'
const INIT = `0x602a6000556018601160003960186000f3${RUNTIME.slice(2)}`
const APIS = 'ETH,NET,WEB3,EVM,HARDHAT,ANVIL,DEBUG'
const TEN_THOUSAND_ETHER = `0x${(10_000n * 10n ** 18n).toString(16)}`
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

interface Block {
  number: string
  hash: string
  parentHash: string
}

let a: StartedNode
let b: StartedNode
let contract: string
let forkHead: Block
let deployReceipt: { transactionHash: string }
const started: StartedNode[] = []

async function sendAndWait(node: StartedNode, tx: Record<string, string>): Promise<Record<string, string>> {
  const hash = await node.rpc<string>('eth_sendTransaction', [{ from: DEV0, ...tx }])
  for (let i = 0; i < 200; i++) {
    const r = await node.rpc<Record<string, string> | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await Bun.sleep(20)
  }
  throw new Error(`no receipt for ${hash}`)
}

async function startB(dataPath?: string): Promise<StartedNode> {
  const args = ['--fork-url', a.url, '--dev-accounts-unlocked', '--rpc-http-api', APIS]
  const n = await startNode({ args, dataPath })
  started.push(n)
  return n
}

beforeAll(async () => {
  a = await startNode({ args: ['--dev-accounts-unlocked', '--rpc-http-api', APIS] })
  started.push(a)
  contract = (await sendAndWait(a, { data: INIT })).contractAddress
  await sendAndWait(a, { to: PAYEE, value: '0x5' })
  forkHead = await a.rpc<Block>('eth_getBlockByNumber', ['latest', false])
  b = await startB()
}, 60_000)

afterAll(async () => {
  for (const n of started) await n.cleanup()
})

describe('a chain forked from another node', () => {
  it('refuses to start when the remote cannot be reached, naming it', async () => {
    const args = ['run', '--data-path', ':memory:', '--rpc-http-port', '0', '--rpc-ws-enabled=false']
    const { err, code } = await runProcess([BASALT_BIN, ...args, '--fork-url', 'http://127.0.0.1:1'], {
      cwd: tmpdir(),
      env: process.env,
      timeoutMs: 20_000,
    })
    expect(err).toContain('basalt: fork remote http://127.0.0.1:1 failed on eth_chainId')
    expect(code).toBe(1)
  })

  it("starts on the remote's head, with its chain id and its blocks up to there", async () => {
    expect(await b.rpc('eth_chainId')).toBe(await a.rpc('eth_chainId'))
    expect(await b.rpc('eth_blockNumber')).toBe(forkHead.number)
    expect((await b.rpc<Block>('eth_getBlockByNumber', [forkHead.number, false])).hash).toBe(forkHead.hash)
    const first = await a.rpc<Block>('eth_getBlockByNumber', ['0x1', true])
    expect(await b.rpc('eth_getBlockByNumber', ['0x1', true])).toEqual(first)
    expect(await b.rpc('eth_getBlockByHash', [first.hash, true])).toEqual(first)
    // BLOCKHASH of a block before the fork is the remote's (init code: a zero byte then BLOCKHASH(1),
    // returned: created code must not start with 0xEF under EIP-3541, and a hash may).
    const created = await b.rpc('eth_call', [{ data: '0x60014060015260216000f3' }, 'latest'])
    expect(created).toBe(`0x00${first.hash.slice(2)}`)
    // The remote's transactions and receipts up to the fork block, as the remote answers them.
    const deploy = (first as unknown as { transactions: { hash: string }[] }).transactions[0].hash
    deployReceipt = await a.rpc('eth_getTransactionReceipt', [deploy])
    expect(await b.rpc('eth_getTransactionReceipt', [deploy])).toEqual(deployReceipt)
    expect(await b.rpc('eth_getTransactionByHash', [deploy])).toEqual(await a.rpc('eth_getTransactionByHash', [deploy]))
    const fees = await b.rpc<{ oldestBlock: string }>('eth_feeHistory', ['0x4', 'latest', [50]])
    expect(BigInt(fees.oldestBlock)).toBeLessThanOrEqual(BigInt(forkHead.number))
  })

  it("reads the remote's balances, code and storage", async () => {
    expect(await b.rpc('eth_getBalance', [PAYEE, 'latest'])).toBe('0x5')
    expect(await b.rpc('eth_getCode', [contract, 'latest'])).toBe(RUNTIME)
    expect(await b.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(42))
    expect(await b.rpc('eth_call', [{ to: contract }, 'latest'])).toBe(word(42))
    // The dev accounts are funded on the fork, as Anvil's are; their nonces stay the remote's.
    expect(await a.rpc('eth_getBalance', [DEV0, 'latest'])).not.toBe(TEN_THOUSAND_ETHER)
    expect(await b.rpc('eth_getBalance', [DEV0, forkHead.number])).toBe(TEN_THOUSAND_ETHER)
    expect(await b.rpc('eth_getTransactionCount', [DEV0, forkHead.number])).toBe('0x2')
  })

  it('keeps its own transactions to itself, zeroed slots included', async () => {
    const set = await sendAndWait(b, { to: contract, data: word(7) })
    expect(set.status).toBe('0x1')
    const block = await b.rpc<Block>('eth_getBlockByNumber', [set.blockNumber, false])
    expect(BigInt(block.number)).toBe(BigInt(forkHead.number) + 1n)
    expect(block.parentHash).toBe(forkHead.hash)
    expect(await b.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(7))
    await sendAndWait(b, { to: PAYEE, value: '0x3' })
    expect(await b.rpc('eth_getBalance', [PAYEE, 'latest'])).toBe('0x8')
    const zero = await sendAndWait(b, { to: contract, data: word(0) })
    expect(await b.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(0))
    expect(await b.rpc('eth_getStorageAt', [contract, '0x0', set.blockNumber])).toBe(word(7))
    expect(await b.rpc('eth_getStorageAt', [contract, '0x0', forkHead.number])).toBe(word(42))
    // A's chain has none of it.
    expect(await a.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(42))
    expect(await a.rpc('eth_getBalance', [PAYEE, 'latest'])).toBe('0x5')
    expect(await a.rpc('eth_blockNumber')).toBe(forkHead.number)
    // A replay of the block reads the same values (the trace sees the remote's 7 → 0 as a local write).
    const trace = await b.rpc<{ structLogs: { op: string }[] }>('debug_traceTransaction', [zero.transactionHash, {}])
    expect(trace.structLogs.some((l) => l.op === 'SSTORE')).toBe(true)
  })

  it('does not bring back from the remote an account deleted here', async () => {
    // Emptied, then touched: EIP-158 deletes it, and the remote's 5 wei must not come back.
    await b.rpc('anvil_setBalance', [PAYEE, '0x0'])
    const touch = await sendAndWait(b, { to: PAYEE, value: '0x0' })
    expect(touch.status).toBe('0x1')
    expect(await b.rpc('eth_getBalance', [PAYEE, 'latest'])).toBe('0x0')
    expect(await b.rpc('eth_getBalance', [PAYEE, forkHead.number])).toBe('0x5')
    expect(await b.rpc<string>('anvil_dumpState')).toMatch(/^0x1f8b/)
  })

  it('moves onto another fork point with hardhat_reset, keeps it across a restart, and goes back to it without arguments', async () => {
    const c = await startB()
    await sendAndWait(c, { to: contract, data: word(9) })
    const first = await a.rpc<Block>('eth_getBlockByNumber', ['0x1', false])
    expect(await c.rpc('hardhat_reset', [{ forking: { jsonRpcUrl: a.url, blockNumber: 1 } }])).toBe(true)
    expect(await c.rpc('eth_blockNumber')).toBe('0x1')
    expect((await c.rpc<Block>('eth_getBlockByNumber', ['latest', false])).hash).toBe(first.hash)
    // A's state at block 1: the contract with its 42, PAYEE not paid yet; c's own block is gone.
    expect(await c.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(42))
    expect(await c.rpc('eth_getBalance', [PAYEE, 'latest'])).toBe('0x0')
    expect(await c.rpc('eth_getBalance', [DEV0, 'latest'])).toBe(TEN_THOUSAND_ETHER)
    const info = await c.rpc<{ forkConfig: { forkBlockNumber: number } }>('anvil_nodeInfo')
    expect(info.forkConfig.forkBlockNumber).toBe(1)
    const local = await sendAndWait(c, { to: PAYEE, value: '0x2' })
    expect(local.blockNumber).toBe('0x2')
    expect((await c.rpc<Block>('eth_getBlockByNumber', ['0x2', false])).parentHash).toBe(first.hash)
    await c.stop()

    const restarted = await startB(c.dataPath)
    expect(await restarted.rpc('eth_blockNumber')).toBe('0x2')
    expect(await restarted.rpc('eth_getBalance', [PAYEE, 'latest'])).toBe('0x2')
    // Without arguments a forked chain goes back to its (new) fork block.
    expect(await restarted.rpc('anvil_reset', [])).toBeNull()
    expect(await restarted.rpc('eth_blockNumber')).toBe('0x1')
    expect(await restarted.rpc('eth_getBalance', [PAYEE, 'latest'])).toBe('0x0')
    // Back onto A's head: the contract and PAYEE as A has them.
    await restarted.rpc('anvil_reset', [{ forking: { blockNumber: Number(forkHead.number) } }])
    expect(await restarted.rpc('eth_blockNumber')).toBe(forkHead.number)
    expect(await restarted.rpc('eth_getBalance', [PAYEE, 'latest'])).toBe('0x5')
    await restarted.stop()
    // The data path now records that fork point: a start naming the earlier one is refused.
    const args = ['run', '--data-path', c.dataPath, '--rpc-http-port', '0', '--rpc-ws-enabled=false']
    const refused = await runProcess([BASALT_BIN, ...args, '--fork-url', a.url, '--fork-block-number', '1'], {
      cwd: tmpdir(),
      env: process.env,
      timeoutMs: 20_000,
    })
    expect(refused.err).toContain(`forked at block ${BigInt(forkHead.number)}, not at 1`)
    expect(refused.code).toBe(1)
  })

  it("keeps anvil_setRpcUrl's URL across a restart without --fork-url; a --fork-url given at a restart wins", async () => {
    const forkUrl = async (n: StartedNode) =>
      (await n.rpc<{ forkConfig: { forkUrl: string } }>('anvil_nodeInfo')).forkConfig.forkUrl
    const first = await startB()
    const other = a.url.replace('127.0.0.1', 'localhost')
    expect(await first.rpc('anvil_setRpcUrl', [other])).toBeNull()
    await first.stop()
    const second = await startNode({ args: ['--rpc-http-api', APIS], dataPath: first.dataPath })
    started.push(second)
    expect(await forkUrl(second)).toBe(other)
    // Not read before the restart: it comes from the remote, through the stored URL.
    expect(await second.rpc('eth_getCode', [contract, 'latest'])).toBe(RUNTIME)
    await second.stop()
    const third = await startB(first.dataPath)
    expect(await forkUrl(third)).toBe(a.url)
    expect(await third.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(42))
    await third.stop()
  })

  it('restarts on its data path without the remote, after a crash, and names the remote when it needs it', async () => {
    const head = await b.rpc<Block>('eth_getBlockByNumber', ['latest', false])
    // A chain forked at the same block with a shared --fork-cache file reads what another read before.
    const shared = ['--fork-cache', `${b.dir}/fork-cache.sqlite`, '--fork-block-number', forkHead.number]
    const first = await startNode({ args: ['--fork-url', a.url, ...shared] })
    started.push(first)
    expect(await first.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(42))
    await first.stop()
    await b.stop('SIGKILL')
    await a.stop()
    const second = await startNode({ args: ['--fork-url', a.url, ...shared] })
    started.push(second)
    expect(await second.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(42))
    expect(await second.rpc('eth_getCode', [contract, 'latest'])).toBe(RUNTIME)
    expect(await second.rpc('eth_blockNumber')).toBe(forkHead.number)
    await second.stop()

    const again = await startB(b.dataPath)
    expect((await again.rpc<Block>('eth_getBlockByNumber', ['latest', false])).hash).toBe(head.hash)
    expect(await again.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(0))
    expect(await again.rpc('eth_getCode', [contract, 'latest'])).toBe(RUNTIME)
    expect(await again.rpc('eth_getBalance', [PAYEE, forkHead.number])).toBe('0x5')
    expect((await again.rpc<Block>('eth_getBlockByNumber', ['0x1', true])).number).toBe('0x1')
    // Fetched history stays answered from the cache; a local block's logs need no remote.
    expect(await again.rpc('eth_getTransactionReceipt', [deployReceipt.transactionHash])).toEqual(deployReceipt)
    expect(await again.rpc('eth_getLogs', [{ blockHash: head.hash }])).toEqual([])
    expect(await again.rpc('eth_getTransactionReceipt', [word(5)])).toBeNull()
    const failed = await again.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [STRANGER, 'latest'] })
    expect(failed.json.error.code).toBe(-32000)
    expect(failed.json.error.message).toContain(`fork remote ${a.url}`)

    // A move to another fork point needs the remote, which is gone: the chain stays where it was.
    const other = await again.rpcRaw({
      jsonrpc: '2.0',
      id: 2,
      method: 'hardhat_reset',
      params: [{ forking: { jsonRpcUrl: a.url, blockNumber: 1 } }],
    })
    expect(other.json.error.code).toBe(-32000)
    expect(other.json.error.message).toContain(`fork remote ${a.url}`)
    expect((await again.rpc<Block>('eth_getBlockByNumber', ['latest', false])).hash).toBe(head.hash)
    // A reset to this node's own fork point goes back to the fork block without asking the remote.
    expect(await again.rpc('anvil_reset', [{ forking: { jsonRpcUrl: a.url } }])).toBeNull()
    expect(await again.rpc('eth_blockNumber')).toBe(forkHead.number)
    expect(await again.rpc('eth_getStorageAt', [contract, '0x0', 'latest'])).toBe(word(42))
  })
})
