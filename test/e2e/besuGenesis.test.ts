/**
 * Genesis and block files written the way Besu writes them, on the compiled binary: a proof-of-work
 * dev chain with a fixed difficulty and a mergeNetsplitBlock marker, filled by a JSON block file and
 * served over JSON-RPC; a clique genesis merged at genesis; malformed files refused in one line.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { generateBftNetwork, runBasalt, startNode, until, writeAmsterdamGenesis, writeJsonFile } from './harness.ts'

const tmp = mkdtempSync(join(tmpdir(), 'basalt-besu-genesis-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const KEY = `0x${'8f'.repeat(32)}` as const
const SENDER = privateKeyToAddress(KEY).toLowerCase()
const RECIPIENT = `0x${'ab'.repeat(20)}`
// Besu fills every fork before London from it: London alone means all of them at block 0.
const FORKS = { londonBlock: 0 }

const POA_WARNING =
  'Skipping system contract request processors for PoA consensus (clique/ibft/qbft) without system contract addresses.'

const writeJson = (name: string, value: unknown) => writeJsonFile(tmp, name, value)

/** A legacy transfer of 5 wei from the funded key to RECIPIENT, signed for `chainId`. */
const transfer = (chainId: number) =>
  privateKeyToAccount(KEY).signTransaction({
    type: 'legacy',
    chainId,
    nonce: 0,
    to: RECIPIENT as `0x${string}`,
    value: 5n,
    gas: 21_000n,
    gasPrice: 2_000_000_000n,
  })

/** A clique genesis on Cancun with SENDER as its signer (and funded), with `config` on top. */
const cliqueGenesis = (name: string, config: Record<string, unknown>) =>
  writeJson(name, {
    config: {
      ...FORKS,
      shanghaiTime: 0,
      cancunTime: 0,
      clique: { blockperiodseconds: 2, epochlength: 30000 },
      ...config,
    },
    difficulty: '0x1',
    extraData: `0x${'00'.repeat(32)}${SENDER.slice(2)}${'00'.repeat(65)}`,
    gasLimit: '0x1c9c380',
    alloc: { [SENDER]: { balance: '0x3635c9adc5dea00000' } },
  })

const basalt = (args: string[]) => runBasalt(args)

/** `basalt blocks import --format=JSON` of `blocks` on `genesis` into `dataPath`. */
function importJson(blocks: string, genesis: string, dataPath: string): Promise<{ code: number; out: string }> {
  return basalt([
    'blocks',
    'import',
    '--format=JSON',
    '--from',
    blocks,
    '--genesis-file',
    genesis,
    '--data-path',
    dataPath,
  ])
}

/**
 * Exports the chain in `dataPath` as RLP and imports it into a fresh data path with proof-of-work
 * seals unchecked; expects `count` blocks there with the same head as `imported` reported.
 */
async function expectRlpRoundTrip(genesis: string, dataPath: string, name: string, imported: string, count: number) {
  const rlp = join(tmp, `${name}.rlp`)
  const dataArgs = (path: string) => ['--genesis-file', genesis, '--data-path', path]
  expect((await basalt(['blocks', 'export', '--to', rlp, ...dataArgs(dataPath)])).code).toBe(0)
  const again = await basalt([
    'blocks',
    'import',
    '--from',
    rlp,
    '--skip-pow-validation-enabled',
    ...dataArgs(join(tmp, `${name}-rlp`)),
  ])
  expect(again.out).toContain(`imported ${count} blocks (1..${count})`)
  const head = new RegExp(`head ${count} (0x[0-9a-f]+)`)
  expect(again.out.match(head)?.[1]).toBe(imported.match(head)?.[1])
}

/** Exports the chain at `dataPath` to an RLP file and imports it into a fresh data path on the same genesis. */
async function exportAndImport(genesis: string, dataPath: string, name: string) {
  const rlp = join(tmp, `${name}.rlp`)
  const dataArgs = (path: string) => ['--genesis-file', genesis, '--data-path', path]
  expect((await basalt(['blocks', 'export', '--to', rlp, ...dataArgs(dataPath)])).code).toBe(0)
  return basalt(['blocks', 'import', '--from', rlp, ...dataArgs(join(tmp, `${name}-rlp`))])
}

describe('Besu genesis and block files', () => {
  const powGenesis = writeJson('pow.json', {
    config: {
      chainId: 2018,
      ...FORKS,
      mergeNetsplitBlock: 0,
      ethash: { fixeddifficulty: 100 },
      contractSizeLimit: 2147483647,
    },
    nonce: '0x42',
    timestamp: '0x0',
    gasLimit: '0x1fffffffffffff',
    difficulty: '0x10000',
    alloc: { [SENDER.slice(2)]: { balance: '90000000000000000000000', privateKey: KEY } },
  })

  it('imports a JSON block file on a fixed-difficulty chain and serves it', async () => {
    const blocks = writeJson('blocks.json', {
      blocks: [
        {
          number: '0x1',
          transactions: [{ gasLimit: '0x5208', gasPrice: '0x3b9aca00', to: RECIPIENT, value: '0x7', secretKey: KEY }],
        },
        { transactions: [{ gasLimit: '0x5208', gasPrice: '0x3b9aca00', to: RECIPIENT, value: '0x8', secretKey: KEY }] },
      ],
    })
    const dataPath = join(tmp, 'pow-data')
    const imported = await importJson(blocks, powGenesis, dataPath)
    expect(imported.out).toContain('imported 2 blocks (1..2)')
    expect(imported.code).toBe(0)
    // The same chain as RLP (Besu's export format) imports into a fresh data path with the same head.
    await expectRlpRoundTrip(powGenesis, dataPath, 'pow', imported.out, 2)
    const node = await startNode({ dataPath, args: ['--genesis-file', powGenesis, '--miner-enabled=false'] })
    try {
      const head = await node.rpc<{ number: string; difficulty: string; transactions: unknown[] }>(
        'eth_getBlockByNumber',
        ['latest', false],
      )
      expect([head.number, head.difficulty, head.transactions.length]).toEqual(['0x2', '0x64', 1])
      expect(await node.rpc('eth_getBalance', [RECIPIENT, 'latest'])).toBe('0xf')
    } finally {
      await node.cleanup()
    }
  })

  it('mines a sent transaction into a proof-of-work block with the fixed difficulty (--miner-enabled)', async () => {
    const node = await startNode({ args: ['--genesis-file', powGenesis, '--miner-enabled'] })
    try {
      const hash = await node.rpc<string>('eth_sendRawTransaction', [await transfer(2018)])
      let receipt: { blockNumber: string; status: string } | null = null
      for (let i = 0; i < 100 && !receipt; i++) {
        receipt = await node.rpc('eth_getTransactionReceipt', [hash])
        if (!receipt) await Bun.sleep(50)
      }
      expect(receipt?.status).toBe('0x1')
      const block = await node.rpc<{ difficulty: string }>('eth_getBlockByNumber', [receipt!.blockNumber, false])
      expect(block.difficulty).toBe('0x64')
    } finally {
      await node.cleanup()
    }
  })

  it('seals Amsterdam blocks with a block access list hash (--miner-enabled) that import elsewhere', async () => {
    // The latest Besu's Amsterdam from genesis, proof of stake, Prague's system contracts, a stub at
    // both builder request contracts (EIP-8282, returning nothing). The recipient exists: a plain
    // transfer to it is EIP-2780's 21,000 (a new account would add EIP-8037's state gas).
    const genesis = writeAmsterdamGenesis(tmp, 'amsterdam.json', {
      [SENDER]: { balance: '90000000000000000000000' },
      [RECIPIENT]: { balance: '0x1' },
    })
    const dataPath = join(tmp, 'amsterdam-data')
    const node = await startNode({ dataPath, args: ['--genesis-file', genesis, '--miner-enabled'] })
    let head: { number: string; hash: string; blockAccessListHash?: string; slotNumber?: string }
    try {
      const zero = await node.rpc<{ blockAccessListHash?: string }>('eth_getBlockByNumber', ['0x0', false])
      // The genesis executes nothing: the hash of the empty list, keccak256(rlp([])).
      expect(zero.blockAccessListHash).toBe('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347')
      const hash = await node.rpc<string>('eth_sendRawTransaction', [await transfer(2019)])
      const receipt = await until(
        'the receipt',
        () => node.rpc<{ blockNumber: string; status: string } | null>('eth_getTransactionReceipt', [hash]),
        (r) => r !== null,
      )
      expect(receipt?.status).toBe('0x1')
      head = await node.rpc('eth_getBlockByNumber', [receipt?.blockNumber, false])
      expect(head.blockAccessListHash).toMatch(/^0x[0-9a-f]{64}$/)
      expect(head.blockAccessListHash).not.toBe(zero.blockAccessListHash)
      // The dev sealer's slot numbers: the parent's plus one (the genesis has 0).
      expect(head.slotNumber).toBe(head.number)
      // EIP-7708: the transfer's log, from the system address, found by eth_getLogs.
      const logs = await node.rpc<{ address: string; topics: string[]; data: string; transactionHash: string }[]>(
        'eth_getLogs',
        [{ fromBlock: head.number, toBlock: head.number, address: '0xfffffffffffffffffffffffffffffffffffffffe' }],
      )
      const word = (a: string) => `0x${a.slice(2).padStart(64, '0')}`
      expect(logs.map((l) => [l.transactionHash, l.topics, l.data])).toEqual([
        [
          hash,
          ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', word(SENDER), word(RECIPIENT)],
          word('0x5'),
        ],
      ])
    } finally {
      await node.cleanup()
    }
    // Imported elsewhere, every block's access list is executed again and checked against its header.
    const again = await exportAndImport(genesis, dataPath, 'amsterdam')
    expect(again.code).toBe(0)
    const count = Number(again.out.match(/imported (\d+) blocks/)?.[1])
    expect(count).toBeGreaterThanOrEqual(Number(head.number))
  })

  it('starts a clique chain merged at genesis (terminalTotalDifficulty 0) with a 32-byte vanity extraData', async () => {
    const genesis = cliqueGenesis('clique.json', { chainId: 4242, terminalTotalDifficulty: 0 })
    const node = await startNode({ args: ['--genesis-file', genesis] })
    try {
      expect(await node.rpc('eth_chainId')).toBe('0x1092')
      const genesisBlock = await node.rpc<{ withdrawalsRoot?: string }>('eth_getBlockByNumber', ['0x0', false])
      expect(genesisBlock.withdrawalsRoot).toBeDefined()
      // Cancun without Prague: Besu builds no Prague spec, so no warning about request processors.
      expect(node.output()).not.toContain(POA_WARNING)
    } finally {
      await node.cleanup()
    }
  })

  it("logs Besu's warning once for a clique chain on Prague and Osaka without the request contract addresses", async () => {
    const genesis = cliqueGenesis('clique-prague.json', { chainId: 4244, pragueTime: 0, osakaTime: 0 })
    const node = await startNode({ args: ['--genesis-file', genesis] })
    try {
      expect(node.output().split(POA_WARNING).length - 1).toBe(1)
    } finally {
      await node.cleanup()
    }
  })

  it('reports the request contracts at the addresses the genesis names in eth_config', async () => {
    const withdrawals = `0x${'71'.repeat(20)}`
    const genesis = writeJson('prague.json', {
      config: {
        chainId: 4243,
        ...FORKS,
        terminalTotalDifficulty: 0,
        pragueTime: 0,
        withdrawalRequestContractAddress: withdrawals,
      },
      difficulty: '0x0',
      gasLimit: '0x1c9c380',
    })
    const node = await startNode({ args: ['--genesis-file', genesis] })
    try {
      const config = await node.rpc<{ current: { systemContracts: Record<string, string> } }>('eth_config')
      expect(config.current.systemContracts.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS).toBe(withdrawals)
      expect(config.current.systemContracts.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS).toBe(
        '0x0000bbddc7ce488642fb579f8b00f3a590007251',
      )
    } finally {
      await node.cleanup()
    }
  })

  it('refuses a malformed genesis in one line naming the file and the line and column', async () => {
    const broken = writeJson('broken.json', '{\n  "config": {"chainId": 1},\n  "gasLimit": zzz\n}')
    const r = await basalt([
      'blocks',
      'import',
      '--from',
      broken,
      '--genesis-file',
      broken,
      '--data-path',
      join(tmp, 'x'),
    ])
    expect(r.code).not.toBe(0)
    expect(r.out).toContain(`invalid genesis file ${broken}: unexpected character "z" at line 3, column 15`)
    expect(r.out).not.toContain('    at ')
  })

  it('refuses a JSON block file on a QBFT chain, as Besu does (its blocks come from rounds)', async () => {
    const { genesisFile } = generateBftNetwork(
      join(tmp, 'qbft'),
      { config: { chainId: 4244, londonBlock: 0, qbft: { blockperiodseconds: 1 } }, gasLimit: '0x1c9c380' },
      1,
    )
    const blocks = writeJson('qbft-blocks.json', { blocks: [{ transactions: [] }] })
    const r = await importJson(blocks, genesisFile, join(tmp, 'qbft-data'))
    expect(r.code).toBe(1)
    expect(r.out).toBe('basalt: Unable to create block using current consensus engine: qbft\n')
  })

  describe('a timestamp fork reached before the last block fork (shanghaiTime 0, londonBlock 4)', () => {
    // Besu runs the highest milestone number a block reached: Shanghai (time 0) on blocks 0-3, then
    // London (block 4 is the higher number) from block 4 on, with London's first base fee again.
    const goesBack = writeJson('goes-back.json', {
      config: { chainId: 2019, berlinBlock: 0, londonBlock: 4, shanghaiTime: 0, ethash: { fixeddifficulty: 100 } },
      timestamp: '0x0',
      gasLimit: '0x1c9c380',
      difficulty: '0x10000',
      baseFeePerGas: '0x3b9aca00',
      alloc: { [SENDER.slice(2)]: { balance: '90000000000000000000000' } },
    })
    type Head = { number: string; withdrawalsRoot?: string; baseFeePerGas?: string }
    const shapes = async (node: Awaited<ReturnType<typeof startNode>>, last: number) => {
      const out: [number, boolean][] = []
      for (let n = 0; n <= last; n++) {
        const b = await node.rpc<Head>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
        out.push([n, b.withdrawalsRoot !== undefined])
      }
      return out
    }
    const expected = (last: number) => Array.from({ length: last + 1 }, (_, n): [number, boolean] => [n, n < 4])

    it('imports a block file through the change, serves each block with its fork, and eth_call follows it', async () => {
      const tx = (value: number) => ({
        gasLimit: '0x5208',
        gasPrice: '0x77359400',
        to: RECIPIENT,
        value: `0x${value.toString(16)}`,
        secretKey: KEY,
      })
      const blocks = writeJson('goes-back-blocks.json', {
        blocks: [1, 2, 3, 4, 5, 6].map((v) => ({ transactions: [tx(v)] })),
      })
      const dataPath = join(tmp, 'goes-back-data')
      const imported = await importJson(blocks, goesBack, dataPath)
      expect(imported.out).toContain('imported 6 blocks (1..6)')
      // Besu's RLP export of the same chain imports again with every header checked.
      const rlp = join(tmp, 'goes-back.rlp')
      const dataArgs = (path: string) => ['--genesis-file', goesBack, '--data-path', path]
      expect((await basalt(['blocks', 'export', '--to', rlp, ...dataArgs(dataPath)])).code).toBe(0)
      const skipPow = '--skip-pow-validation-enabled'
      const again = await basalt(['blocks', 'import', '--from', rlp, skipPow, ...dataArgs(join(tmp, 'goes-back-rlp'))])
      expect(again.out).toContain('imported 6 blocks (1..6)')
      const apis = ['--rpc-http-api', 'ETH,NET,WEB3,DEBUG']
      const node = await startNode({ dataPath, args: ['--genesis-file', goesBack, '--miner-enabled=false', ...apis] })
      try {
        expect(await shapes(node, 6)).toEqual(expected(6))
        const fork = await node.rpc<Head>('eth_getBlockByNumber', ['0x4', false])
        expect(fork.baseFeePerGas).toBe('0x3b9aca00')
        expect(await node.rpc('eth_getBalance', [RECIPIENT, 'latest'])).toBe('0x15')
        // PUSH0 PUSH0 RETURN as init code: Shanghai has PUSH0, London (from block 4) does not.
        const push0 = { from: SENDER, data: '0x5f5ff3' }
        expect(await node.rpc('eth_call', [push0, '0x3'])).toBe('0x')
        const refused = await node.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [push0, '0x5'] })
        expect(refused.json.error).toEqual({
          code: -32000,
          message: 'Transaction processing could not be completed due to an exception: Invalid opcode: 0x5f',
        })
        const traced = await node.rpc<unknown[]>('debug_traceBlockByNumber', ['0x4', { tracer: 'callTracer' }])
        expect(traced.length).toBe(1)
      } finally {
        await node.cleanup()
      }
    })

    it('seals through the change with --miner-enabled', async () => {
      const node = await startNode({ args: ['--genesis-file', goesBack, '--miner-enabled'] })
      try {
        for (let nonce = 0; nonce < 6; nonce++) {
          const raw = await privateKeyToAccount(KEY).signTransaction({
            type: 'eip1559',
            chainId: 2019,
            nonce,
            to: RECIPIENT as `0x${string}`,
            value: 1n,
            gas: 21_000n,
            maxFeePerGas: 4_000_000_000n,
            maxPriorityFeePerGas: 1n,
          })
          // One at a time: the miner seals when transactions wait, each in a block of its own.
          const hash = await node.rpc<string>('eth_sendRawTransaction', [raw])
          await until(
            `receipt ${nonce}`,
            () => node.rpc<{ status: string } | null>('eth_getTransactionReceipt', [hash]),
            (r) => r?.status === '0x1',
          )
        }
        expect(Number(await node.rpc<string>('eth_blockNumber'))).toBeGreaterThanOrEqual(6)
        expect(await shapes(node, 6)).toEqual(expected(6))
      } finally {
        await node.cleanup()
      }
    })
  })
})

describe('Ethereum Classic genesis and block files', () => {
  const COINBASE = `0x${'c1'.repeat(20)}`
  // Every ETC milestone a block apart, eras of 3 blocks: own values in the keys of Besu's classic.json.
  const etcGenesis = writeJson('etc.json', {
    config: {
      chainId: 6161,
      homesteadBlock: 0,
      classicForkBlock: 0,
      ecip1015Block: 1,
      diehardBlock: 1,
      gothamBlock: 2,
      // Gotham's bomb delay has no value before block 2,200,000 (Besu fails there): defused at once.
      ecip1041Block: 2,
      atlantisBlock: 4,
      aghartaBlock: 5,
      phoenixBlock: 5,
      thanosBlock: 6,
      magnetoBlock: 6,
      mystiqueBlock: 7,
      spiralBlock: 7,
      ecip1017EraRounds: 3,
      ethash: {},
    },
    nonce: '0x42',
    timestamp: '0x10',
    gasLimit: '0x7a1200',
    difficulty: '0x20000',
    alloc: { [SENDER.slice(2)]: { balance: '90000000000000000000000' } },
  })

  it("runs a schedule of Ethereum's forks to London and then ETC's (all_forks.json's class) block by block", async () => {
    // Own values: London at 3, then back to Classic Tangerine Whistle at 5, Atlantis at 7.
    const genesis = writeJson('mixed.json', {
      config: {
        chainId: 6262,
        homesteadBlock: 0,
        eip150Block: 0,
        eip158Block: 1,
        byzantiumBlock: 1,
        constantinopleBlock: 2,
        petersburgBlock: 2,
        istanbulBlock: 2,
        berlinBlock: 2,
        londonBlock: 3,
        ecip1015Block: 5,
        diehardBlock: 6,
        gothamBlock: 6,
        ecip1041Block: 6,
        atlantisBlock: 7,
        ethash: {},
      },
      timestamp: '0x10',
      gasLimit: '0x7a1200',
      difficulty: '0x20000',
      alloc: { [SENDER.slice(2)]: { balance: '90000000000000000000000' } },
    })
    const tx = { gasLimit: '0x5208', gasPrice: '0x3b9aca00', to: RECIPIENT, value: '0x1', secretKey: KEY }
    const blocks = writeJson('mixed-blocks.json', {
      blocks: Array.from({ length: 8 }, () => ({ coinbase: COINBASE, transactions: [tx] })),
    })
    const dataPath = join(tmp, 'mixed-data')
    expect((await importJson(blocks, genesis, dataPath)).out).toContain('imported 8 blocks (1..8)')
    const node = await startNode({ dataPath, args: ['--genesis-file', genesis, '--miner-enabled=false'] })
    try {
      const baseFees: (string | undefined)[] = []
      for (let n = 1; n <= 8; n++) {
        const b = await node.rpc<{ baseFeePerGas?: string }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
        baseFees.push(b.baseFeePerGas)
      }
      // London's blocks (3, 4) have a base fee; Classic Tangerine Whistle (5) and later ones do not.
      expect(baseFees.map((f) => f !== undefined)).toEqual([false, false, true, true, false, false, false, false])
      expect(BigInt(await node.rpc<string>('eth_getBalance', [RECIPIENT, 'latest']))).toBe(8n)
    } finally {
      await node.cleanup()
    }
  })

  it('mines ECIP-1049 blocks with --miner-enabled that import elsewhere with their keccak-256 seals checked', async () => {
    // A tiny fixed difficulty: 16 nonces a block on average.
    const genesis = writeJson('keccak.json', {
      config: { chainId: 2023, ecip1049Block: 0, ethash: { fixeddifficulty: 16 } },
      timestamp: '0x10',
      gasLimit: '0x7a1200',
      difficulty: '0x10',
      alloc: { [SENDER.slice(2)]: { balance: '90000000000000000000000' } },
    })
    const dataPath = join(tmp, 'keccak-data')
    const node = await startNode({ dataPath, args: ['--genesis-file', genesis, '--miner-enabled'] })
    try {
      const hash = await node.rpc<string>('eth_sendRawTransaction', [await transfer(2023)])
      const receipt = (await until(
        'the receipt',
        () => node.rpc<{ blockNumber: string } | null>('eth_getTransactionReceipt', [hash]),
        (r) => r !== null,
      ))!
      const block = await node.rpc<{ difficulty: string; mixHash: string }>('eth_getBlockByNumber', [
        receipt.blockNumber,
        false,
      ])
      expect(block.difficulty).toBe('0x10')
      expect(block.mixHash).not.toBe(`0x${'00'.repeat(32)}`)
    } finally {
      await node.cleanup()
    }
    // No --skip-pow-validation-enabled: every seal is checked.
    const again = await exportAndImport(genesis, dataPath, 'keccak')
    expect(again.out).toMatch(/imported (\d+) blocks \(1\.\.\1\)/)
  })

  it('builds, exports and re-imports blocks through every milestone with ETC difficulty and rewards', async () => {
    const tx = { gasLimit: '0x5208', gasPrice: '0x3b9aca00', to: RECIPIENT, value: '0x1', secretKey: KEY }
    const blocks = writeJson('etc-blocks.json', {
      blocks: Array.from({ length: 8 }, () => ({ coinbase: COINBASE, transactions: [tx] })),
    })
    const dataPath = join(tmp, 'etc-data')
    const imported = await importJson(blocks, etcGenesis, dataPath)
    expect(imported.out).toContain('imported 8 blocks (1..8)')
    await expectRlpRoundTrip(etcGenesis, dataPath, 'etc', imported.out, 8)
    const node = await startNode({ dataPath, args: ['--genesis-file', etcGenesis, '--miner-enabled=false'] })
    try {
      const head = await node.rpc<{ baseFeePerGas?: string; withdrawalsRoot?: string }>('eth_getBlockByNumber', [
        'latest',
        false,
      ])
      // Spiral has Shanghai's EVM without withdrawals, Mystique London's without the fee market.
      expect([head.baseFeePerGas, head.withdrawalsRoot]).toEqual([undefined, undefined])
      // ECIP-1017: 5 ether in the first era (blocks 1..3), 4 in the second, 3.2 in the third; the fees on top.
      const rewards = 3n * 5n * 10n ** 18n + 3n * 4n * 10n ** 18n + 2n * 32n * 10n ** 17n
      const fees = 8n * 21_000n * 1_000_000_000n
      expect(BigInt(await node.rpc<string>('eth_getBalance', [COINBASE, 'latest']))).toBe(rewards + fees)
      expect(await node.rpc('eth_chainId')).toBe('0x1811')
    } finally {
      await node.cleanup()
    }
  })
})
