/**
 * Block access lists (EIP-7928) on the compiled binary: an Amsterdam block sealed with
 * `--miner-enabled` holding a value transfer to a contract that stores a slot, asked for under each
 * of Besu's method names, and asked again after the node is killed (-9) and started on its data path.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, type Hex, hexToBytes } from 'viem'
import { privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { type StartedNode, startNode, until, writeAmsterdamGenesis } from './harness.ts'

const tmp = mkdtempSync(join(tmpdir(), 'basalt-bal-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const KEY = `0x${'8f'.repeat(32)}` as const
const SENDER = privateKeyToAddress(KEY).toLowerCase()
const CONTRACT = `0x${'cc'.repeat(20)}` as const
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

interface Block {
  number: string
  hash: string
  blockAccessListHash: string
}

interface Answers {
  byTag: Record<string, unknown>[]
  byHash: unknown
  byBlockNumber: unknown
  byBlockHash: unknown
  byNumber: { balHash: string; blockAccessList: { accountChanges: unknown[] } }
}

/** What each name answers for `block`. */
async function askAll(node: StartedNode, block: Block): Promise<Answers> {
  return {
    byTag: await node.rpc<Record<string, unknown>[]>('eth_getBlockAccessList', [block.number]),
    byHash: await node.rpc('eth_getBlockAccessList', [block.hash]),
    byBlockNumber: await node.rpc('eth_getBlockAccessListByBlockNumber', [block.number]),
    byBlockHash: await node.rpc('eth_getBlockAccessListByBlockHash', [block.hash]),
    byNumber: await node.rpc<Answers['byNumber']>('eth_getBlockAccessListByNumber', [block.number]),
  }
}

describe('block access lists over JSON-RPC', () => {
  it('serves a sealed block’s list under every name, and again after kill -9 and a restart', async () => {
    const genesis = writeAmsterdamGenesis(tmp, 'amsterdam.json', {
      [SENDER]: { balance: '90000000000000000000000' },
      // SSTORE(1, 0x2a)
      [CONTRACT]: { code: '0x602a60015500' },
    })
    const dataPath = join(tmp, 'data')
    const args = ['--genesis-file', genesis, '--miner-enabled', '--rpc-http-api', 'ETH,DEBUG']
    const node = await startNode({ dataPath, args })
    let block: Block
    let first: Answers
    try {
      const raw = await privateKeyToAccount(KEY).signTransaction({
        type: 'eip1559',
        chainId: 2019,
        nonce: 0,
        to: CONTRACT,
        value: 5n,
        gas: 500_000n, // EIP-8037: a new slot costs 64 state bytes at 1,530 gas
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1n,
      })
      const hash = await node.rpc<string>('eth_sendRawTransaction', [raw])
      const receipt = await until(
        'the receipt',
        () => node.rpc<{ blockNumber: string; status: string } | null>('eth_getTransactionReceipt', [hash]),
        (r) => r !== null,
      )
      expect(receipt?.status).toBe('0x1')
      block = await node.rpc<Block>('eth_getBlockByNumber', [receipt!.blockNumber, false])
      first = await askAll(node, block)
      const list = first.byTag
      const contract = list.find((a) => a.address === CONTRACT)
      expect(contract).toEqual({
        address: CONTRACT,
        storageChanges: [{ key: word(1), changes: [{ index: '0x1', value: word(0x2a) }] }],
        storageReads: [],
        balanceChanges: [{ index: '0x1', value: '0x5' }],
        nonceChanges: [],
        codeChanges: [],
      })
      for (const name of ['byHash', 'byBlockNumber', 'byBlockHash'] as const) expect(first[name]).toEqual(list)
      expect(first.byNumber.balHash).toBe(block.blockAccessListHash)
      expect(first.byNumber.blockAccessList.accountChanges.length).toBe(list.length)
      const genesisError = await node.rpcRaw({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getBlockAccessListByBlockNumber',
        params: ['0x0'],
      })
      expect(genesisError.json.error).toEqual({ code: 4444, message: 'Pruned history unavailable' })
      const unknown = await node.rpcRaw({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getBlockAccessListByBlockHash',
        params: [`0x${'ab'.repeat(32)}`],
      })
      expect(unknown.json.error).toEqual({ code: -32000, message: 'Block not found' })
      const beyond = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockAccessList', params: ['0x99'] })
      expect(beyond.json.error).toEqual({ code: -32000, message: 'Block not found' })
      // debug_getRawBlockAccessList: the bytes the header's hash commits to, by number, tag or hash.
      const rawByNumber = await node.rpc<string>('debug_getRawBlockAccessList', [block.number])
      expect<string>(bytesToHex(keccak_256(hexToBytes(rawByNumber as Hex)))).toBe(block.blockAccessListHash)
      expect(await node.rpc('debug_getRawBlockAccessList', [block.hash])).toBe(rawByNumber)
      expect(await node.rpc('debug_getRawBlockAccessList', ['latest'])).toBe(rawByNumber)
      expect(await node.rpc('debug_getRawBlockAccessList', ['pending'])).toBeNull()
      const rawError = async (param: string) =>
        (await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'debug_getRawBlockAccessList', params: [param] })).json
          .error
      expect(await rawError('0x0')).toEqual({ code: 4444, message: 'Pruned history unavailable' })
      expect(await rawError('0x99')).toEqual({ code: -32001, message: 'Resource not found' })
      expect(await rawError(`0x${'ab'.repeat(32)}`)).toEqual({ code: -32001, message: 'Resource not found' })
      expect(await rawError('finalized')).toEqual({ code: -39001, message: 'Unknown block' })
    } finally {
      await node.stop('SIGKILL')
    }
    const again = await startNode({ dataPath, args })
    try {
      expect(await askAll(again, block)).toEqual(first)
    } finally {
      await again.cleanup()
    }
  })

  it('refuses a block before Amsterdam: 4445 from the eth methods, -32001 from debug_getRawBlockAccessList', async () => {
    const node = await startNode({ args: ['--rpc-http-api', 'ETH,DEBUG'] })
    try {
      const ask = async (method: string) =>
        (await node.rpcRaw({ jsonrpc: '2.0', id: 1, method, params: ['latest'] })).json.error
      expect(await ask('eth_getBlockAccessList')).toEqual({
        code: 4445,
        message: 'Block access list not available for pre-Amsterdam blocks',
      })
      expect(await ask('debug_getRawBlockAccessList')).toEqual({ code: -32001, message: 'Resource not found' })
    } finally {
      await node.cleanup()
    }
  })
})
