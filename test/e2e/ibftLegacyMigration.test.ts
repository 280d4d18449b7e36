/**
 * Besu's legacy IBFT 1.0 to QBFT migration (a Quorum Istanbul chain moved to QBFT): a genesis with
 * `ibft` and `qbft.startBlock` 3. Blocks 1 and 2 are IBFT 1.0 blocks built and signed here, by hand
 * (32 raw vanity bytes, then RLP [validators, proposer seal, committed seals]); `blocks import` takes
 * them, the validator produces nothing below block 3 (Besu's IBFT 1.0 controller mines nothing) and
 * QBFT blocks from it on the imported chain. Besu's refusals of an IBFT 1.0 genesis without QBFT, and
 * a block whose seals do not make a quorum, are checked too.
 */
import { afterAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, type Hex, hexToBytes } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { BASALT_BIN, BFT_MIX_HASH, reservedPort, type StartedNode, startNode } from './harness.ts'

setDefaultTimeout(90_000)

const START_BLOCK = 3
const dir = mkdtempSync(join(tmpdir(), 'basalt-ibft1-migration-'))
const started: StartedNode[] = []
afterAll(async () => {
  await Promise.all(started.map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

const KEY: Hex = `0x${'5a'.repeat(32)}`
const VALIDATOR = privateKeyToAddress(KEY).toLowerCase() as Hex
const keyFile = join(dir, 'key.priv')
writeFileSync(keyFile, KEY)
const VANITY = new Uint8Array(32)

/** Vanity ‖ RLP([validators, proposer seal, committed seals]). */
const legacyExtra = (seal: Uint8Array, seals: Uint8Array[]) =>
  new Uint8Array([...VANITY, ...RLP.encode([[hexToBytes(VALIDATOR)], seal, seals])])

const genesisOf = (config: Record<string, unknown>) => ({
  config: { chainId: 4321, ...config },
  gasLimit: '0x7a1200',
  difficulty: '0x1',
  mixHash: BFT_MIX_HASH,
  extraData: bytesToHex(legacyExtra(new Uint8Array(0), [])),
  timestamp: '0x0',
  alloc: {},
})
const genesisFile = join(dir, 'genesis.json')
writeFileSync(
  genesisFile,
  JSON.stringify(
    genesisOf({
      ibft: { blockperiodseconds: 1, epochlength: 30000, requesttimeoutseconds: 10 },
      qbft: { blockperiodseconds: 1, requesttimeoutseconds: 4, startBlock: START_BLOCK },
    }),
  ),
)

function sign(hash: Uint8Array): Uint8Array {
  const sig = secp256k1.sign(hash, hexToBytes(KEY), { prehash: false, format: 'recovered' })
  return new Uint8Array([...sig.subarray(1), sig[0]])
}

const EMPTY_TRIE = hexToBytes('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
const EMPTY_OMMERS = hexToBytes('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347')

/**
 * A legacy block on `parent` (its hash and state root), proposed and sealed by the one validator:
 * the proposer seal signs keccak(keccak(header without seals)); the committed seal signs
 * keccak(hash ‖ 0x02), the hash being the header with the proposer seal and no committed seals.
 */
function legacyBlock(number: number, parentHash: Hex, stateRoot: Hex, timestamp: number, seals = 1) {
  const header = (extra: Uint8Array) => [
    hexToBytes(parentHash),
    EMPTY_OMMERS,
    new Uint8Array(20),
    hexToBytes(stateRoot),
    EMPTY_TRIE,
    EMPTY_TRIE,
    new Uint8Array(256),
    Uint8Array.of(1),
    Uint8Array.of(number),
    hexToBytes('0x7a1200'),
    new Uint8Array(0),
    Uint8Array.of(timestamp),
    extra,
    hexToBytes(BFT_MIX_HASH),
    new Uint8Array(8),
  ]
  const proposerSeal = sign(keccak_256(keccak_256(RLP.encode(header(legacyExtra(new Uint8Array(0), []))))))
  const hash = keccak_256(RLP.encode(header(legacyExtra(proposerSeal, []))))
  const committed = sign(keccak_256(new Uint8Array([...hash, 0x02])))
  const block = RLP.encode([header(legacyExtra(proposerSeal, Array(seals).fill(committed))), [], []])
  return { block, hash: bytesToHex(hash) }
}

type RpcBlock = { hash: Hex; parentHash: Hex; stateRoot: Hex; extraData: Hex; miner: Hex }
const blockAt = (node: StartedNode, n: number) =>
  node.rpc<RpcBlock>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
const blocks = (args: string[], genesis = genesisFile) =>
  Bun.spawnSync([BASALT_BIN, 'blocks', ...args, '--genesis-file', genesis])
const start = async (dataPath: string, extra: string[] = []) => {
  const args = ['--genesis-file', genesisFile, '--rpc-http-api', 'ETH,QBFT,IBFT', '--node-private-key-file', keyFile]
  const node = await startNode({ args: [...args, ...extra], dataPath })
  started.push(node)
  return node
}

describe('a legacy IBFT 1.0 chain moving to QBFT at qbft.startBlock', () => {
  const dataPath = join(dir, 'data')
  let chainFile = ''
  let legacyHashes: Hex[] = []

  it('starts on the IBFT 1.0 genesis and produces no block below the start block', async () => {
    const node = await start(join(dir, 'idle'))
    const genesis = await blockAt(node, 0)
    expect(await node.rpc('qbft_getValidatorsByBlockNumber', ['0x0'])).toEqual([VALIDATOR])
    await Bun.sleep(2500)
    expect(await node.rpc('eth_blockNumber')).toBe('0x0')
    // As Besu registers no IBFT 2.0 methods on such a chain.
    await expect(node.rpc('ibft_getValidatorsByBlockNumber', ['0x0'])).rejects.toMatchObject({ code: -32601 })
    await node.stop()
    const b1 = legacyBlock(1, genesis.hash, genesis.stateRoot, 1)
    const b2 = legacyBlock(2, b1.hash, genesis.stateRoot, 2)
    legacyHashes = [b1.hash, b2.hash]
    chainFile = join(dir, 'legacy.rlp')
    writeFileSync(chainFile, new Uint8Array([...b1.block, ...b2.block]))
    // A block with no committed seal is refused: one validator needs one.
    const unsealed = join(dir, 'unsealed.rlp')
    writeFileSync(unsealed, legacyBlock(1, genesis.hash, genesis.stateRoot, 1, 0).block)
    const refused = blocks(['import', '--data-path', join(dir, 'refused'), '--from', unsealed])
    expect(refused.exitCode).not.toBe(0)
    expect(refused.stderr.toString()).toContain('0 committed seals, 1 needed')
  })

  it('imports the IBFT 1.0 blocks under their legacy hashes, then seals QBFT blocks on them', async () => {
    const imported = blocks(['import', '--data-path', dataPath, '--from', chainFile])
    expect(imported.stderr.toString()).toBe('')
    expect(imported.exitCode).toBe(0)
    const node = await start(dataPath)
    expect((await blockAt(node, 1)).hash).toBe(legacyHashes[0])
    expect((await blockAt(node, 2)).hash).toBe(legacyHashes[1])
    expect(await node.rpc('qbft_getValidatorsByBlockNumber', ['0x1'])).toEqual([VALIDATOR])
    const deadline = Date.now() + 30_000
    while (Number(await node.rpc<Hex>('eth_blockNumber')) < START_BLOCK + 1) {
      if (Date.now() > deadline) throw new Error(`no QBFT block:\n${node.output()}`)
      await Bun.sleep(100)
    }
    const b3 = await blockAt(node, START_BLOCK)
    expect(b3.parentHash).toBe(legacyHashes[1])
    expect(b3.miner).toBe(VALIDATOR)
    // QBFT's layout: an RLP list whose first item is the 32-byte vanity.
    const [vanity, validators] = RLP.decode(hexToBytes(b3.extraData)) as unknown as [Uint8Array, Uint8Array[]]
    expect(vanity.length).toBe(32)
    expect(validators.map((v) => bytesToHex(v))).toEqual([VALIDATOR])
    expect(await node.rpc('qbft_getValidatorsByBlockNumber', [`0x${START_BLOCK.toString(16)}`])).toEqual([VALIDATOR])
    const metrics = await node.rpc<{ address: Hex; proposedBlockCount: Hex }[]>('qbft_getSignerMetrics', ['0x1', '0x3'])
    expect(metrics).toEqual([expect.objectContaining({ address: VALIDATOR, proposedBlockCount: '0x2' })])
    await node.stop()
  })

  it('brings the IBFT 1.0 blocks and the QBFT ones to a peer over eth/68, under the same hashes', async () => {
    const port = await reservedPort()
    const enode = `enode://${bytesToHex(secp256k1.getPublicKey(hexToBytes(KEY), false).subarray(1)).slice(2)}@127.0.0.1:${port}`
    const staticNodes = join(dir, 'static-nodes.json')
    writeFileSync(staticNodes, JSON.stringify([enode]))
    const p2p = ['--p2p-host', '127.0.0.1', '--static-nodes-file', staticNodes, '--discovery-enabled=false']
    const validator = await start(dataPath, ['--p2p-port', String(port), ...p2p])
    const follower = await startNode({ args: ['--genesis-file', genesisFile, '--rpc-http-api', 'ETH,QBFT', ...p2p] })
    started.push(follower)
    const target = Number(await validator.rpc<Hex>('eth_blockNumber')) + 1
    const deadline = Date.now() + 40_000
    while (Number(await follower.rpc<Hex>('eth_blockNumber')) < target) {
      if (Date.now() > deadline) throw new Error(`the follower did not sync:\n${follower.output().slice(-3000)}`)
      await Bun.sleep(200)
    }
    for (const n of [1, 2, START_BLOCK, target])
      expect((await blockAt(follower, n)).hash).toBe((await blockAt(validator, n)).hash)
    expect((await blockAt(follower, 1)).hash).toBe(legacyHashes[0])
    await Promise.all([validator.stop(), follower.stop()])
  })

  it('loads a GoQuorum-shaped IBFT 1.0 genesis: forks by block, its own ibft keys, GoQuorum keys, decimal gas limit', async () => {
    const validators = [1, 2, 3, 4, 5].map((i) => `0x${i.toString(16).padStart(2, '0').repeat(20)}` as Hex)
    const file = join(dir, 'quorum.json')
    const body = RLP.encode([validators.map((v) => hexToBytes(v)), new Uint8Array(0), []])
    const quorum = {
      ...genesisOf({
        homesteadBlock: 0,
        eip150Block: 20,
        eip150Hash: `0x${'00'.repeat(32)}`,
        eip155Block: 30,
        eip158Block: 40,
        byzantiumBlock: 50,
        ibft: {
          epochlength: 1000,
          blockperiodseconds: 5,
          policy: 0,
          ceil2Nby3Block: 0,
          validatorcontractaddress: `0x${'00'.repeat(20)}`,
        },
        qbft: { epochLength: 30000, blockPeriodSeconds: 1, requestTimeoutSeconds: 10, startBlock: 101 },
        txnSizeLimit: 64,
        maxCodeSizeConfig: [{ block: 0, size: 64 }],
        isMPS: false,
      }),
      gasLimit: '700000000',
      extraData: bytesToHex(new Uint8Array([...VANITY, ...body])),
    }
    writeFileSync(file, JSON.stringify(quorum))
    const node = await startNode({ args: ['--genesis-file', file, '--rpc-http-api', 'ETH,QBFT'] })
    started.push(node)
    expect(await node.rpc('eth_chainId')).toBe('0x10e1')
    expect(await node.rpc('qbft_getValidatorsByBlockNumber', ['latest'])).toEqual(validators)
    expect((await node.rpc<{ gasLimit: Hex }>('eth_getBlockByNumber', ['0x0', false])).gasLimit).toBe('0x29b92700')
    await node.stop()
  })

  it("refuses an IBFT 1.0 genesis without QBFT, or without its start block, in Besu's words", () => {
    const refusal = (config: Record<string, unknown>) => {
      const file = join(dir, 'refused.json')
      writeFileSync(file, JSON.stringify(genesisOf(config)))
      const r = blocks(['import', '--data-path', join(dir, 'never'), '--from', chainFile], file)
      expect(r.exitCode).not.toBe(0)
      return r.stderr.toString()
    }
    expect(refusal({ ibft: {} })).toContain('IBFT1 (legacy) is no longer supported. Consider using IBFT2 or QBFT.')
    expect(refusal({ ibft: {}, qbft: {} })).toContain('Missing QBFT startBlock config in genesis file')
    // A JSON block file, as on any BFT chain, names the engine Besu reports for this genesis (QBFT).
    const json = join(dir, 'blocks.json')
    writeFileSync(json, JSON.stringify({ blocks: [{ transactions: [] }] }))
    const refused = blocks(['import', '--format=JSON', '--data-path', join(dir, 'json'), '--from', json])
    expect(refused.stderr.toString()).toBe('basalt: Unable to create block using current consensus engine: qbft\n')
  })
})
