/**
 * Pool admission and block building on Amsterdam (EIP-2780 intrinsic gas, EIP-7976's calldata
 * floor, EIP-8037's state gas), as the latest Besu does them: a transaction whose gas is below its
 * intrinsic gas or calldata floor is refused at eth_sendRawTransaction; a transfer whose gas cannot
 * pay the new account's state gas passes the intrinsic check and fails at execution, in a block;
 * eth_estimateGas covers that state gas; a transaction that turns out invalid when a payload is built
 * is dropped from the pool with a logged reason instead of waiting there forever.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getContractAddress, type Hex, parseEther, parseGwei } from 'viem'
import { privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { ACCOUNTS, startEngineNode, ZERO32 } from './engineHarness.ts'
import { startNode, until, writeAmsterdamGenesis } from './harness.ts'

const tmp = mkdtempSync(join(tmpdir(), 'basalt-amsterdam-pool-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const KEY = `0x${'8f'.repeat(32)}` as const
const SENDER = privateKeyToAddress(KEY).toLowerCase()
const FEES = { type: 'eip1559', maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n } as const

describe('Amsterdam pool admission (dev sealer)', () => {
  it('refuses gas below the calldata floor, mines a transfer short of state gas as failed, and estimates enough', async () => {
    const node = await startNode({
      args: [
        '--genesis-file',
        writeAmsterdamGenesis(tmp, 'amsterdam.json', { [SENDER]: { balance: '90000000000000000000000' } }),
        '--miner-enabled',
      ],
    })
    const account = privateKeyToAccount(KEY)
    const sign = (tx: object) => account.signTransaction({ ...FEES, chainId: 2019, ...tx })
    const receipt = (hash: string) =>
      until(
        `the receipt of ${hash}`,
        () => node.rpc<{ status: string; gasUsed: string } | null>('eth_getTransactionReceipt', [hash]),
        (r) => r !== null,
      )
    try {
      // 1,000 calldata bytes: EIP-2780's intrinsic gas is about 37,000 but EIP-7976's floor 64 gas a
      // byte on top of the base; 40,000 covers the first only. Besu's validator takes the larger.
      const belowFloor = await sign({
        nonce: 0,
        to: `0x${'ce'.repeat(20)}`,
        data: `0x${'01'.repeat(1000)}`,
        gas: 40_000n,
      })
      const refused = await node.rpcRaw({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_sendRawTransaction',
        params: [belowFloor],
      })
      expect(refused.json.error).toEqual({ code: -32003, message: 'Intrinsic gas exceeds gas limit' })

      // A transfer creating its recipient with 21,000 gas: the intrinsic gas (12,000 + 3,000 + 6,000)
      // is covered, the new account's state gas is not. Besu runs out of gas there: a failed
      // transaction in the next block, every unit of gas spent, the recipient not created.
      const fresh = `0x${'cd'.repeat(20)}`
      const short = await node.rpc<string>('eth_sendRawTransaction', [
        await sign({ nonce: 0, to: fresh, value: 5n, gas: 21_000n }),
      ])
      const failed = await receipt(short)
      expect([failed?.status, failed?.gasUsed]).toEqual(['0x0', '0x5208'])
      expect(await node.rpc('eth_getBalance', [fresh, 'latest'])).toBe('0x0')

      // eth_estimateGas pays the state gas too, and its figure is enough.
      const estimate = await node.rpc<string>('eth_estimateGas', [{ from: SENDER, to: fresh, value: '0x5' }])
      expect(BigInt(estimate)).toBeGreaterThan(21_000n)
      const enough = await node.rpc<string>('eth_sendRawTransaction', [
        await sign({ nonce: 1, to: fresh, value: 5n, gas: BigInt(estimate) }),
      ])
      expect((await receipt(enough))?.status).toBe('0x1')
      expect(await node.rpc('eth_getBalance', [fresh, 'latest'])).toBe('0x5')

      // A creation whose gas covers its regular intrinsic gas but not the new account's state gas:
      // the newest Besu (EIP-2780 as in glamsterdam-devnet 7) charges that state gas on the top
      // frame, so the transaction is valid, admitted and mined as failed, with no contract created
      // (an earlier Besu revision refused it as intrinsic: docs/genesis.md, Amsterdam).
      const creation = await node.rpc<string>('eth_sendRawTransaction', [
        await sign({ nonce: 2, data: '0x00', gas: 60_000n }),
      ])
      const created = await receipt(creation)
      expect([created?.status, created?.gasUsed]).toEqual(['0x0', '0xea60'])
      const contract = getContractAddress({ from: SENDER as Hex, nonce: 2n })
      expect(await node.rpc('eth_getCode', [contract, 'latest'])).toBe('0x')
      expect(await node.rpc('eth_getTransactionCount', [SENDER, 'latest'])).toBe('0x3')
    } finally {
      await node.cleanup()
    }
  })
})

describe('Amsterdam payload building', () => {
  it('drops from the pool, with its reason in the log, a transaction the payload cannot execute', async () => {
    const en = await startEngineNode({ pragueTime: 0, osakaTime: 0, amsterdamTime: 0 })
    try {
      const account = privateKeyToAccount(ACCOUNTS[0].privateKey as Hex)
      const send = async (nonce: number) =>
        en.rpc<string>('eth_sendRawTransaction', [
          await account.signTransaction({
            ...FEES,
            chainId: 1337,
            nonce,
            to: `0x${'c1'.repeat(20)}`,
            value: parseEther('6000'),
            gas: 300_000n,
          }),
        ])
      // Each alone fits the 10,000 ether the pool checks against; the second cannot pay once the
      // first ran (Besu's selector deletes it: UPFRONT_COST_EXCEEDS_BALANCE is not transient).
      const first = await send(0)
      const second = await send(1)
      const genesis = await en.rpc('eth_getBlockByNumber', ['latest', false])
      const fcu = await en.rpc('engine_forkchoiceUpdatedV4', [
        { headBlockHash: genesis.hash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
        {
          timestamp: `0x${(Number(genesis.timestamp) + 12).toString(16)}`,
          prevRandao: `0x${'33'.repeat(32)}`,
          suggestedFeeRecipient: `0x${'fe'.repeat(20)}`,
          withdrawals: [],
          parentBeaconBlockRoot: `0x${'44'.repeat(32)}`,
          slotNumber: '0x1',
          targetGasLimit: genesis.gasLimit,
        },
      ])
      const built = await en.rpc('engine_getPayloadV6', [fcu.payloadId])
      expect(built.executionPayload.transactions.length).toBe(1)
      expect(await en.rpc('eth_getTransactionByHash', [second])).toBeNull()
      expect((await en.rpc('eth_getTransactionByHash', [first]))?.hash).toBe(first)
      const line = en.node
        .output()
        .split('\n')
        .find((l) => l.includes(second))
      expect(line).toContain('dropping transaction that cannot execute')
      expect(line).toContain("sender doesn't have enough funds")
    } finally {
      await en.node.cleanup()
    }
  })
})
