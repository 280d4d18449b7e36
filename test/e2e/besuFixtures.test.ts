/**
 * Three more genesis classes as Besu users write them, each loaded by the binary and checked against
 * the values Besu serves: a clique network with Besu's `blockperiodseconds`, `epochlength` and
 * `createemptyblocks` filled by a JSON block file (sealed by the node key, checkpoints every two
 * blocks) and moved as RLP; an ethash network upgraded to London after its genesis, its blocks moved
 * as RLP; a post-merge Prague genesis with every request contract at an address of its own.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { SYSTEM_CONTRACTS } from '../../src/evm/systemContracts.ts'
import { runBasalt, startNode, until, writeJsonFile } from './harness.ts'

const tmp = mkdtempSync(join(tmpdir(), 'basalt-besu-fixtures-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const KEY = `0x${'5c'.repeat(32)}` as const
const SENDER = privateKeyToAddress(KEY).toLowerCase()
const SIGNER_KEY = `0x${'3e'.repeat(32)}` as const
const SIGNER = privateKeyToAddress(SIGNER_KEY).toLowerCase()
const RECIPIENT = `0x${'cd'.repeat(20)}`

interface Head {
  number: string
  hash: string
  miner: string
  extraData: string
  difficulty: string
  nonce: string
  baseFeePerGas?: string
  gasLimit: string
  requestsHash?: string
  transactions: unknown[]
}

const writeJson = (name: string, value: unknown) => writeJsonFile(tmp, name, value)

const basalt = (args: string[]) => runBasalt(args)

/** A legacy transfer in Besu's JSON block format, signed by `secretKey`. */
const transfer = (value: number, gasPrice = '0x3b9aca00') => ({
  gasLimit: '0x5208',
  gasPrice,
  to: RECIPIENT,
  value: `0x${value.toString(16)}`,
  secretKey: KEY,
})

/** Imports `blocks` as a JSON file, exports the chain as RLP and imports that into a fresh data path; both heads agree. */
async function importJsonThenRlp(name: string, genesis: string, blocks: unknown[], extra: string[] = []) {
  const dataPath = join(tmp, `${name}-data`)
  const file = writeJson(`${name}-blocks.json`, { blocks })
  const imported = await basalt([
    'blocks',
    'import',
    '--format=JSON',
    '--from',
    file,
    '--genesis-file',
    genesis,
    '--data-path',
    dataPath,
    ...extra,
  ])
  expect(imported.out).toContain(`imported ${blocks.length} blocks (1..${blocks.length})`)
  const rlp = join(tmp, `${name}.rlp`)
  const exported = await basalt(['blocks', 'export', '--to', rlp, '--genesis-file', genesis, '--data-path', dataPath])
  expect(exported.code).toBe(0)
  const rlpData = join(tmp, `${name}-rlp`)
  const again = await basalt([
    'blocks',
    'import',
    '--from',
    rlp,
    '--skip-pow-validation-enabled',
    '--genesis-file',
    genesis,
    '--data-path',
    rlpData,
  ])
  expect(again.code).toBe(0)
  const head = (out: string) => out.match(/head \d+ (0x[0-9a-f]+)/)?.[1]
  expect(head(again.out)).toBe(head(imported.out))
  return rlpData
}

describe('Besu fixtures', () => {
  it('clique network with blockperiodseconds, epochlength and createemptyblocks: JSON blocks, RLP, signers', async () => {
    const genesis = writeJson('clique-net.json', {
      config: {
        chainId: 1981,
        berlinBlock: 0,
        londonBlock: 0,
        clique: { blockperiodseconds: 1, epochlength: 2, createemptyblocks: false },
      },
      nonce: '0x0',
      timestamp: '0x0',
      gasLimit: '0x1fffffffffffff',
      difficulty: '0x1',
      mixHash: `0x${'00'.repeat(32)}`,
      coinbase: `0x${'00'.repeat(20)}`,
      extraData: `0x${'00'.repeat(32)}${SIGNER.slice(2)}${'00'.repeat(65)}`,
      alloc: { [SENDER.slice(2)]: { balance: '1000000000000000000000' } },
    })
    const keyFile = join(tmp, 'clique-key')
    writeFileSync(keyFile, SIGNER_KEY)
    const dataPath = await importJsonThenRlp(
      'clique',
      genesis,
      [{ transactions: [transfer(1)] }, { transactions: [transfer(2)] }, { transactions: [transfer(3)] }],
      ['--node-private-key-file', keyFile],
    )
    const node = await startNode({ dataPath, args: ['--genesis-file', genesis, '--rpc-http-api', 'ETH,NET,CLIQUE'] })
    try {
      const blocks = await Promise.all([1, 2, 3].map((n) => node.rpc<Head>('eth_getBlockByNumber', [`0x${n}`, false])))
      // One signer is in turn at every height: difficulty 2; no votes: zero coinbase and nonce.
      for (const b of blocks) {
        expect([b.difficulty, b.miner, b.nonce]).toEqual(['0x2', `0x${'00'.repeat(20)}`, '0x0000000000000000'])
        expect(b.transactions.length).toBe(1)
      }
      // Block 2 is a checkpoint (epochlength 2): vanity, the signer, the seal; the others vanity and seal.
      expect((blocks[1].extraData.length - 2) / 2).toBe(32 + 20 + 65)
      expect(blocks[1].extraData.slice(66, 106)).toBe(SIGNER.slice(2))
      expect((blocks[0].extraData.length - 2) / 2).toBe(32 + 65)
      expect(await node.rpc('clique_getSigners', ['latest'])).toEqual([SIGNER])
      expect(await node.rpc('eth_getBalance', [RECIPIENT, 'latest'])).toBe('0x6')
      // Clique fees go to the signer recovered from the seal, as Besu's clique mining beneficiary.
      // Each transfer pays 21000 gas at 1 gwei, the base fee burnt and the rest to the signer.
      const tips = blocks.reduce((sum, b) => sum + 21_000n * (1_000_000_000n - BigInt(b.baseFeePerGas ?? '0x0')), 0n)
      expect(tips).toBeGreaterThan(0n)
      expect(BigInt(await node.rpc<string>('eth_getBalance', [SIGNER, 'latest']))).toBe(tips)
    } finally {
      await node.cleanup()
    }
  })

  it('ethash network upgraded to London at block 2: no base fee before, 1 gwei and twice the gas limit at the fork', async () => {
    const genesis = writeJson('ethash-london-later.json', {
      config: {
        chainId: 1982,
        homesteadBlock: 0,
        eip150Block: 0,
        eip155Block: 0,
        eip158Block: 0,
        byzantiumBlock: 0,
        constantinopleBlock: 0,
        petersburgBlock: 0,
        istanbulBlock: 0,
        berlinBlock: 0,
        londonBlock: 2,
        ethash: { fixeddifficulty: 1000 },
      },
      gasLimit: '0x989680',
      difficulty: '0x3e8',
      alloc: { [SENDER]: { balance: '0xd3c21bcecceda1000000' } },
    })
    const dataPath = await importJsonThenRlp('london-later', genesis, [
      { transactions: [transfer(1)] },
      { transactions: [transfer(2, '0x77359400')] },
      { transactions: [] },
    ])
    const node = await startNode({ dataPath, args: ['--genesis-file', genesis] })
    try {
      const [b1, b2, b3] = await Promise.all(
        [1, 2, 3].map((n) => node.rpc<Head>('eth_getBlockByNumber', [`0x${n}`, false])),
      )
      expect(b1.baseFeePerGas).toBeUndefined()
      expect([b1.difficulty, b2.difficulty, b3.difficulty]).toEqual(['0x3e8', '0x3e8', '0x3e8'])
      expect(b2.baseFeePerGas).toBe('0x3b9aca00')
      expect(BigInt(b2.gasLimit)).toBe(2n * BigInt(b1.gasLimit))
      // Block 2 used 21000 of a 20M target (half its limit): the fee falls by an eighth, less a little.
      expect(BigInt(b3.baseFeePerGas ?? '0x0')).toBeLessThan(1_000_000_000n)
      expect(await node.rpc('eth_getBalance', [RECIPIENT, 'latest'])).toBe('0x3')
    } finally {
      await node.cleanup()
    }
  })

  it('Prague genesis with the deposit, withdrawal and consolidation contracts at addresses of their own', async () => {
    const deposit = `0x${'d1'.repeat(20)}`
    const withdrawals = `0x${'e2'.repeat(20)}`
    const consolidations = `0x${'c3'.repeat(20)}`
    const code = (name: string) => SYSTEM_CONTRACTS.find((c) => c.name === name)?.code as string
    const genesis = writeJson('prague-custom.json', {
      config: {
        chainId: 1983,
        londonBlock: 0,
        terminalTotalDifficulty: 0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 0,
        depositContractAddress: deposit,
        withdrawalRequestContractAddress: withdrawals,
        consolidationRequestContractAddress: consolidations,
      },
      difficulty: '0x0',
      gasLimit: '0x1c9c380',
      alloc: {
        [SENDER]: { balance: '0xd3c21bcecceda1000000' },
        [withdrawals]: { code: code('WITHDRAWAL_REQUESTS'), balance: '0x0', nonce: '0x1' },
        [consolidations]: { code: code('CONSOLIDATION_REQUESTS'), nonce: '0x1' },
        '0x000f3df6d732807ef1319fb7b8bb8522d0beac02': { code: code('BEACON_ROOTS') },
        '0x0000f90827f1c53a10cb7a02335b175320002935': { code: code('HISTORY_STORAGE') },
      },
    })
    const node = await startNode({ args: ['--genesis-file', genesis, '--miner-enabled'] })
    try {
      const config = await node.rpc<{ current: { systemContracts: Record<string, string> } }>('eth_config')
      expect(config.current.systemContracts).toMatchObject({
        DEPOSIT_CONTRACT_ADDRESS: deposit,
        WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: withdrawals,
        CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: consolidations,
      })
      const pubkey = 'aa'.repeat(48)
      const other = 'bb'.repeat(48)
      const account = privateKeyToAccount(KEY)
      const send = async (nonce: number, to: string, data: string) => {
        const raw = await account.signTransaction({
          type: 'eip1559',
          chainId: 1983,
          nonce,
          to: to as `0x${string}`,
          value: 1n,
          data: data as `0x${string}`,
          gas: 300_000n,
          maxFeePerGas: 10_000_000_000n,
          maxPriorityFeePerGas: 1n,
        })
        const hash = await node.rpc<string>('eth_sendRawTransaction', [raw])
        const receipt = await until(
          `the receipt of ${hash}`,
          () => node.rpc<{ blockNumber: string; status: string } | null>('eth_getTransactionReceipt', [hash]),
          (r) => r !== null,
        )
        expect(receipt?.status).toBe('0x1')
        return node.rpc<Head>('eth_getBlockByNumber', [receipt?.blockNumber, false])
      }
      const sha = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex')
      // A full exit (amount 0) of one validator: EIP-7002's request is source ++ pubkey ++ amount.
      const exit = await send(0, withdrawals, `0x${pubkey}${'00'.repeat(8)}`)
      expect(exit.requestsHash).toBe(`0x${sha(sha(`01${SENDER.slice(2)}${pubkey}${'00'.repeat(8)}`))}`)
      // EIP-7251: source ++ source pubkey ++ target pubkey.
      const merge = await send(1, consolidations, `0x${pubkey}${other}`)
      expect(merge.requestsHash).toBe(`0x${sha(sha(`02${SENDER.slice(2)}${pubkey}${other}`))}`)
      // The default addresses hold no contract on this chain: a request sent there is a plain transfer.
      const plain = await send(2, '0x00000961ef480eb55e80d19ad83579a64c007002', `0x${pubkey}${'00'.repeat(8)}`)
      expect(plain.requestsHash).toBe(`0x${sha('')}`)
    } finally {
      await node.cleanup()
    }
  })
})
