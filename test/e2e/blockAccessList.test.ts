/**
 * Block access lists (EIP-7928) on the compiled binary: an Amsterdam block sealed with
 * `--miner-enabled` holding a value transfer to a contract that stores a slot, asked for under each
 * of Besu's method names, and asked again after the node is killed (-9) and started on its data path.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { SYSTEM_CONTRACTS } from '../../src/chain/systemContracts.ts'
import { type StartedNode, startNode, until, writeJsonFile } from './harness.ts'

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
    const alloc: Record<string, unknown> = {
      [SENDER]: { balance: '90000000000000000000000' },
      // SSTORE(1, 0x2a)
      [CONTRACT]: { code: '0x602a60015500' },
    }
    for (const c of SYSTEM_CONTRACTS) alloc[c.address] = { code: c.code, nonce: '0x1' }
    // A proof-of-stake Amsterdam chain calls both builder request contracts (EIP-8282) at every
    // block and refuses to build one without their code: a stub returning nothing serves both.
    const builders = '0x0000000000000000000000000000000000009999'
    alloc[builders] = { code: '0x00' }
    const genesis = writeJsonFile(tmp, 'amsterdam.json', {
      config: {
        chainId: 2019,
        londonBlock: 0,
        terminalTotalDifficulty: 0,
        amsterdamTime: 0,
        builderDepositRequestContractAddress: builders,
        builderExitRequestContractAddress: builders,
      },
      timestamp: '0x0',
      gasLimit: '0x1c9c380',
      difficulty: '0x0',
      alloc,
    })
    const dataPath = join(tmp, 'data')
    const args = ['--genesis-file', genesis, '--miner-enabled']
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
        // EIP-8037: the new slot's state bytes cost more than 100,000 gas on top of the call.
        gas: 500_000n,
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
})
