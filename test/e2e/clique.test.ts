/**
 * Clique on the compiled binary, as Besu runs a clique network: a node whose key is the genesis
 * signer seals blocks with --miner-enabled (difficulty 2 in turn, 97-byte sealed extraData,
 * checkpoints listing the signer, blockperiodseconds between blocks), votes a signer in through
 * Besu's CLIQUE group, and `blocks import
 * --format=JSON` seals the blocks of a JSON block file with the node key.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAddress } from 'viem/accounts'
import { BASALT_BIN, runProcess, signTransfer, startNode, writeCliqueGenesis } from './harness.ts'

const tmp = mkdtempSync(join(tmpdir(), 'basalt-clique-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const NODE_KEY = `0x${'3c'.repeat(32)}` as const
const SIGNER = privateKeyToAddress(NODE_KEY).toLowerCase()
const SENDER_KEY = `0x${'8f'.repeat(32)}` as const
const SENDER = privateKeyToAddress(SENDER_KEY).toLowerCase()
const RECIPIENT = `0x${'ab'.repeat(20)}` as const

const keyFile = join(tmp, 'key')
writeFileSync(keyFile, `${NODE_KEY}\n`)
const genesisFile = join(tmp, 'clique.json')
writeCliqueGenesis(
  genesisFile,
  1981,
  [SIGNER],
  { blockperiodseconds: 1, epochlength: 2 },
  { [SENDER]: { balance: '0x3635c9adc5dea00000' } },
)

interface RpcBlock {
  hash: string
  number: string
  difficulty: string
  extraData: string
  timestamp: string
  transactions: string[]
}

/** Bytes of a 0x-hex string. */
const byteLength = (hex: string) => (hex.length - 2) / 2

describe('clique', () => {
  it('seals clique blocks with the node key when it is the signer and --miner-enabled is on', async () => {
    const node = await startNode({
      args: [
        '--genesis-file',
        genesisFile,
        '--node-private-key-file',
        keyFile,
        '--miner-enabled',
        '--graphql-http-enabled',
        '--graphql-http-port',
        '0',
      ],
    })
    try {
      const raw = await signTransfer(SENDER_KEY, { chainId: 1981, to: RECIPIENT, value: 9n, maxFeePerGas: 10n ** 10n })
      const hash = await node.rpc<string>('eth_sendRawTransaction', [raw])
      const deadline = Date.now() + 20_000
      while (BigInt(await node.rpc<string>('eth_blockNumber')) < 3n && Date.now() < deadline) await Bun.sleep(200)
      const blocks = await Promise.all(
        ['0x1', '0x2', '0x3'].map((n) => node.rpc<RpcBlock>('eth_getBlockByNumber', [n, false])),
      )
      expect(blocks.map((b) => b.difficulty)).toEqual(['0x2', '0x2', '0x2'])
      // Block 2 is a checkpoint (epochlength 2): vanity, the signer, seal.
      expect(blocks.map((b) => byteLength(b.extraData))).toEqual([97, 117, 97])
      expect(blocks[1].extraData.slice(66, 106)).toBe(SIGNER.slice(2))
      for (let i = 1; i < 3; i++)
        expect(BigInt(blocks[i].timestamp) - BigInt(blocks[i - 1].timestamp)).toBeGreaterThanOrEqual(1n)
      const receipt = await node.rpc<{ status: string }>('eth_getTransactionReceipt', [hash])
      expect(receipt.status).toBe('0x1')
      expect(await node.rpc('eth_getBalance', [RECIPIENT, 'latest'])).toBe('0x9')
      // JSON-RPC block results carry no totalDifficulty (Besu, geth and Nethermind dropped it);
      // GraphQL's Block.totalDifficulty stays, as in Besu's schema: 1 at genesis + 2 per block.
      const genesisBlock = await node.rpc<Record<string, unknown>>('eth_getBlockByNumber', ['0x0', false])
      expect(Object.keys(genesisBlock)).not.toContain('totalDifficulty')
      expect(Object.keys(blocks[2])).not.toContain('totalDifficulty')
      const { graphqlHttpPort } = JSON.parse(readFileSync(join(node.dir, 'config-out.json'), 'utf8'))
      const res = await fetch(`http://127.0.0.1:${graphqlHttpPort}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ block(number: 3) { difficulty totalDifficulty } }' }),
      })
      expect(await res.json()).toEqual({ data: { block: { difficulty: '0x2', totalDifficulty: '0x7' } } })
    } finally {
      await node.cleanup()
    }
  }, 60_000)

  it('seals no empty blocks when the clique config says createemptyblocks: false', async () => {
    const quiet = join(tmp, 'quiet.json')
    const genesis = JSON.parse(readFileSync(genesisFile, 'utf8'))
    genesis.config.clique.createemptyblocks = false
    writeFileSync(quiet, JSON.stringify(genesis))
    const node = await startNode({
      args: ['--genesis-file', quiet, '--node-private-key-file', keyFile, '--miner-enabled'],
    })
    try {
      // Three block periods pass without a transaction: no block.
      await Bun.sleep(3_000)
      expect(await node.rpc('eth_blockNumber')).toBe('0x0')
      const raw = await signTransfer(SENDER_KEY, { chainId: 1981, to: RECIPIENT, value: 4n, maxFeePerGas: 10n ** 10n })
      const hash = await node.rpc<string>('eth_sendRawTransaction', [raw])
      const deadline = Date.now() + 10_000
      let receipt: { blockNumber: string } | null = null
      while (!receipt && Date.now() < deadline) {
        await Bun.sleep(200)
        receipt = await node.rpc('eth_getTransactionReceipt', [hash])
      }
      expect(receipt?.blockNumber).toBe('0x1')
      const block = await node.rpc<RpcBlock>('eth_getBlockByNumber', ['0x1', false])
      expect(block.difficulty).toBe('0x2')
    } finally {
      await node.cleanup()
    }
  }, 60_000)

  it("votes a second signer in through clique_propose (Besu's CLIQUE group); clique_discard drops a proposal", async () => {
    const voting = join(tmp, 'voting.json')
    const genesis = JSON.parse(readFileSync(genesisFile, 'utf8'))
    // Blocks only with transactions, so that the proposals are in place before block 1.
    genesis.config.clique = { blockperiodseconds: 1, epochlength: 1000, createemptyblocks: false }
    writeFileSync(voting, JSON.stringify(genesis))
    const plain = await startNode({ args: ['--genesis-file', voting] })
    try {
      // The group is off unless enabled: -32604, as Besu.
      const { json } = await plain.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'clique_getSigners', params: [] })
      expect(json.error.code).toBe(-32604)
    } finally {
      await plain.cleanup()
    }
    const node = await startNode({
      args: ['--genesis-file', voting, '--node-private-key-file', keyFile, '--miner-enabled'].concat([
        '--rpc-http-api',
        'ETH,NET,CLIQUE',
      ]),
    })
    const NEW_SIGNER = `0x${'5e'.repeat(20)}`
    const DISCARDED = `0x${'d1'.repeat(20)}`
    try {
      expect(await node.rpc('clique_getSigners')).toEqual([SIGNER])
      expect(await node.rpc('clique_propose', [NEW_SIGNER, true])).toBe(true)
      expect(await node.rpc('clique_propose', [DISCARDED, true])).toBe(true)
      expect(await node.rpc('clique_proposals')).toEqual({ [NEW_SIGNER]: true, [DISCARDED]: true })
      expect(await node.rpc('clique_discard', [DISCARDED])).toBe(true)
      expect(await node.rpc('clique_proposals')).toEqual({ [NEW_SIGNER]: true })
      // The zero address is "no vote": Besu answers -32600.
      const zero = await node.rpcRaw({
        jsonrpc: '2.0',
        id: 2,
        method: 'clique_propose',
        params: [`0x${'00'.repeat(20)}`, true],
      })
      expect(zero.json.error.code).toBe(-32600)

      const raw = await signTransfer(SENDER_KEY, { chainId: 1981, to: RECIPIENT, value: 3n, maxFeePerGas: 10n ** 10n })
      await node.rpc<string>('eth_sendRawTransaction', [raw])
      const deadline = Date.now() + 15_000
      while (BigInt(await node.rpc<string>('eth_blockNumber')) < 1n && Date.now() < deadline) await Bun.sleep(200)
      const block = await node.rpc<RpcBlock & { miner: string; nonce: string }>('eth_getBlockByNumber', ['0x1', false])
      // Block 1 carries the vote: the proposed signer as beneficiary, nonce all ones (add).
      expect(block.miner).toBe(NEW_SIGNER)
      expect(block.nonce).toBe('0xffffffffffffffff')
      // One signer of one: the vote passes at once.
      const both = [SIGNER, NEW_SIGNER].sort()
      expect(await node.rpc('clique_getSigners', ['latest'])).toEqual(both)
      expect(await node.rpc('clique_getSigners', ['0x0'])).toEqual([SIGNER])
      expect(await node.rpc('clique_getSignersAtHash', [block.hash])).toEqual(both)
      // Blocks sealed per signer from the genesis (its proposer is the zero address) up to the head, exclusive.
      expect(await node.rpc('clique_getSignerMetrics', ['0x0', 'latest'])).toEqual(
        expect.arrayContaining([
          { address: `0x${'00'.repeat(20)}`, proposedBlockCount: '0x1', lastProposedBlockNumber: '0x0' },
          { address: SIGNER, proposedBlockCount: '0x0', lastProposedBlockNumber: '0x0' },
        ]),
      )
      // An unknown block: Besu's internal error.
      const unknown = await node.rpcRaw({ jsonrpc: '2.0', id: 3, method: 'clique_getSigners', params: ['0x99'] })
      expect(unknown.json.error.code).toBe(-32603)
    } finally {
      await node.cleanup()
    }
  }, 60_000)

  it('forgets its clique_propose proposals on a restart, as Besu (its VoteProposer is in memory only)', async () => {
    const quiet = join(tmp, 'quiet.json')
    const genesis = JSON.parse(readFileSync(genesisFile, 'utf8'))
    genesis.config.clique = { blockperiodseconds: 1, epochlength: 1000, createemptyblocks: false }
    writeFileSync(quiet, JSON.stringify(genesis))
    const dataPath = join(tmp, 'proposals-data')
    const args = ['--genesis-file', quiet, '--node-private-key-file', keyFile, '--miner-enabled']
    args.push('--rpc-http-api', 'ETH,NET,CLIQUE')
    const proposed = `0x${'5f'.repeat(20)}`
    const first = await startNode({ dataPath, args })
    try {
      expect(await first.rpc('clique_propose', [proposed, true])).toBe(true)
      expect(await first.rpc('clique_proposals')).toEqual({ [proposed]: true })
    } finally {
      await first.cleanup()
    }
    const again = await startNode({ dataPath, args })
    try {
      expect(await again.rpc('clique_proposals')).toEqual({})
      expect(await again.rpc('clique_getSigners')).toEqual([SIGNER])
    } finally {
      await again.cleanup()
    }
  }, 60_000)

  it('imports a JSON block file on a clique chain, sealing each block with the node key', async () => {
    const dataPath = join(tmp, 'import-data')
    const blocks = join(tmp, 'blocks.json')
    const transfer = { gasLimit: '0x5208', gasPrice: '0x3b9aca00', to: RECIPIENT, value: '0x5', secretKey: SENDER_KEY }
    writeFileSync(blocks, JSON.stringify({ blocks: [{ transactions: [transfer] }, { transactions: [transfer] }] }))
    const args = ['blocks', 'import', '--format=JSON', '--from', blocks, '--genesis-file', genesisFile]
    const imported = await runProcess(
      [BASALT_BIN, ...args, '--data-path', dataPath, '--node-private-key-file', keyFile],
      {
        cwd: tmp,
        env: process.env,
        timeoutMs: 30_000,
      },
    )
    expect(imported.err).toBe('')
    expect(imported.code).toBe(0)
    const node = await startNode({ dataPath, args: ['--genesis-file', genesisFile] })
    try {
      const head = await node.rpc<RpcBlock>('eth_getBlockByNumber', ['latest', false])
      expect(head.number).toBe('0x2')
      expect(head.difficulty).toBe('0x2')
      expect(byteLength(head.extraData)).toBe(117)
      expect(await node.rpc('eth_getBalance', [RECIPIENT, 'latest'])).toBe('0xa')
    } finally {
      await node.cleanup()
    }
  }, 60_000)

  it('runs a clique chain through its merge, and another node imports its blocks as RLP', async () => {
    const merging = join(tmp, 'merging.json')
    const genesis = JSON.parse(readFileSync(genesisFile, 'utf8'))
    // Total difficulty 1 (genesis) + 2 + 2 reaches 5 at block 2: block 3 on are proof of stake.
    genesis.config.terminalTotalDifficulty = 5
    writeFileSync(merging, JSON.stringify(genesis))
    const node = await startNode({
      args: ['--genesis-file', merging, '--node-private-key-file', keyFile, '--miner-enabled'],
    })
    let head: RpcBlock
    try {
      const deadline = Date.now() + 20_000
      while (BigInt(await node.rpc<string>('eth_blockNumber')) < 4n && Date.now() < deadline) await Bun.sleep(200)
      const blocks = await Promise.all(
        ['0x1', '0x2', '0x3', '0x4'].map((n) => node.rpc<RpcBlock>('eth_getBlockByNumber', [n, false])),
      )
      expect(blocks.map((b) => b.difficulty)).toEqual(['0x2', '0x2', '0x0', '0x0'])
      expect(blocks.map((b) => byteLength(b.extraData))).toEqual([97, 117, 0, 0])
      head = await node.rpc<RpcBlock>('eth_getBlockByNumber', ['0x4', false])
    } finally {
      await node.stop()
    }
    const rlp = join(tmp, 'merging.rlp')
    const common = ['--genesis-file', merging]
    const run = (args: string[]) => runProcess([BASALT_BIN, ...args], { cwd: tmp, env: process.env, timeoutMs: 30_000 })
    const exported = await run([
      'blocks',
      'export',
      '--to',
      rlp,
      '--data-path',
      node.dataPath,
      '--end-block',
      '5',
      ...common,
    ])
    expect(exported.code).toBe(0)
    const imported = await run(['blocks', 'import', '--from', rlp, '--data-path', join(tmp, 'merging-copy'), ...common])
    expect(imported.err).toBe('')
    expect(imported.out).toMatch(/^imported 4 blocks \(1\.\.4\) .* head 4 /)
    expect(imported.out).toContain(`head 4 ${head.hash.slice(0, 10)}`)
    rmSync(node.dir, { recursive: true, force: true })
  }, 60_000)
})
