/**
 * Two compiled nodes on loopback run a clique chain over devp2p: A is the genesis signer and seals
 * with --miner-enabled; B, started with --miner-enabled too, is no signer and only follows, until A
 * proposes it with `clique_propose`. From then on B seals in its turns (EIP-225: with two signers
 * neither seals two blocks in a row) without a restart, and both nodes hold the same blocks; when
 * both vote B out, B stops and A seals alone again. Three signers seal mostly in turn: out of turn
 * a signer waits a random delay first.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, keccak256, recoverAddress, toRlp } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { type StartedNode, startNode, until, writeCliqueGenesis } from './harness.ts'

const KEY_A = `0x${'a1'.repeat(32)}` as const
const KEY_B = `0x${'b2'.repeat(32)}` as const
const SIGNER_A = privateKeyToAddress(KEY_A).toLowerCase()
const SIGNER_B = privateKeyToAddress(KEY_B).toLowerCase()

const dir = mkdtempSync(join(tmpdir(), 'basalt-clique-net-'))
const nodes: StartedNode[] = []
afterAll(async () => {
  for (const n of nodes.reverse()) await n.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

interface RpcBlock {
  hash: Hex
  parentHash: Hex
  sha3Uncles: Hex
  miner: Hex
  stateRoot: Hex
  transactionsRoot: Hex
  receiptsRoot: Hex
  logsBloom: Hex
  difficulty: Hex
  number: Hex
  gasLimit: Hex
  gasUsed: Hex
  timestamp: Hex
  extraData: Hex
  mixHash: Hex
  nonce: Hex
  baseFeePerGas: Hex
}

/** A quantity as RLP wants it: minimal big-endian bytes, zero as the empty string. */
function rlpQuantity(q: Hex): Hex {
  const v = BigInt(q)
  if (v === 0n) return '0x'
  const h = v.toString(16)
  return `0x${h.length % 2 ? '0' : ''}${h}`
}

/**
 * The clique signer of a (London) block, as EIP-225 defines it: the address whose key signed
 * keccak256 of the header RLP with the extraData's last 65 bytes (the seal) cut off.
 */
async function sealerOf(block: RpcBlock): Promise<string> {
  const extra = block.extraData
  const sealed = toRlp([
    block.parentHash,
    block.sha3Uncles,
    block.miner,
    block.stateRoot,
    block.transactionsRoot,
    block.receiptsRoot,
    block.logsBloom,
    rlpQuantity(block.difficulty),
    rlpQuantity(block.number),
    rlpQuantity(block.gasLimit),
    rlpQuantity(block.gasUsed),
    rlpQuantity(block.timestamp),
    extra.slice(0, extra.length - 130) as Hex,
    block.mixHash,
    block.nonce,
    rlpQuantity(block.baseFeePerGas),
  ])
  const signature = `0x${extra.slice(extra.length - 130)}` as Hex
  return (await recoverAddress({ hash: keccak256(sealed), signature })).toLowerCase()
}

const blockAt = (n: StartedNode, b: number) =>
  n.rpc<RpcBlock | null>('eth_getBlockByNumber', [`0x${b.toString(16)}`, false])
const height = async (n: StartedNode) => Number(await n.rpc<Hex>('eth_blockNumber'))
/** Waits (bounded) until `node`'s head reaches `number`. */
const reach = (what: string, node: StartedNode, number: number, ms = 30_000) =>
  until(
    what,
    () => height(node),
    (h) => h >= number,
    ms,
  )

/** A node sealing with `key` on `genesisFile` (--miner-enabled, CLIQUE and ADMIN groups, no discovery). */
async function startSigner(genesisFile: string, name: string, key: Hex, extra: string[] = []): Promise<StartedNode> {
  const keyFile = join(dir, `${name}.key`)
  writeFileSync(keyFile, `${key}\n`)
  const args = ['--genesis-file', genesisFile, '--node-private-key-file', keyFile, '--miner-enabled']
  args.push('--rpc-http-api', 'ETH,NET,ADMIN,CLIQUE', '--discovery-enabled=false', ...extra)
  const n = await startNode({ args, timeoutMs: 30_000 })
  nodes.push(n)
  return n
}

describe('a clique signer voted in over devp2p', () => {
  it('starts sealing in its turns once the signer proposes it, stops when voted out, and both nodes agree on every block', async () => {
    const genesisFile = join(dir, 'clique.json')
    writeCliqueGenesis(genesisFile, 1983, [SIGNER_A], { blockperiodseconds: 1, epochlength: 30000 })
    const start = (name: string, key: Hex, extra: string[]) => startSigner(genesisFile, name, key, extra)
    const a = await start('a', KEY_A, [])
    const enodeA = (await a.rpc<{ enode: string }>('admin_nodeInfo')).enode
    const b = await start('b', KEY_B, ['--bootnodes', enodeA])
    await until(
      'B peers with A',
      () => b.rpc<unknown[]>('admin_peers'),
      (p) => p.length === 1,
    )
    await reach('B follows A', b, 2)
    expect(b.output()).toContain(
      `no block will be produced reason="the node key's address ${SIGNER_B} is not a clique signer"`,
    )

    expect(await a.rpc('clique_propose', [SIGNER_B, true])).toBe(true)
    const after = await height(a)
    // Six blocks past the proposal: B's vote is in, and B has sealed in its turns.
    const target = after + 6
    await reach('A grows', a, target, 60_000)
    await reach('B follows', b, target, 30_000)
    expect(await a.rpc<string[]>('clique_getSigners', ['latest'])).toEqual([SIGNER_A, SIGNER_B].sort())
    expect(await b.rpc<string[]>('clique_getSigners', ['latest'])).toEqual([SIGNER_A, SIGNER_B].sort())
    expect(b.output()).toContain('the node key is a clique signer now')

    const sealers: string[] = []
    let voteAt = -1
    for (let n = 1; n <= target; n++) {
      const [fromA, fromB] = await Promise.all([blockAt(a, n), blockAt(b, n)])
      expect(fromB?.hash).toBe(fromA?.hash)
      const block = fromA!
      const sealer = await sealerOf(block)
      sealers.push(sealer)
      // A's vote for B: B's address as miner and the all-ones nonce.
      if (voteAt < 0 && block.miner.toLowerCase() === SIGNER_B) {
        expect(sealer).toBe(SIGNER_A)
        expect(block.nonce).toBe('0xffffffffffffffff')
        voteAt = n
      }
      // Until the vote A is the only signer (difficulty 2, every block); then the two take turns:
      // neither seals two blocks in a row, difficulty 2 in turn (sorted signers[number % 2]), 1 out of turn.
      const signers = voteAt < 0 || n <= voteAt ? [SIGNER_A] : [SIGNER_A, SIGNER_B].sort()
      if (signers.length === 1) expect(sealer).toBe(SIGNER_A)
      else expect(sealer).not.toBe(sealers[n - 2])
      const inTurn = signers[n % signers.length] === sealer
      expect(block.difficulty).toBe(inTurn ? '0x2' : '0x1')
    }
    expect(voteAt).toBeGreaterThan(0)
    expect(sealers.slice(voteAt).filter((s) => s === SIGNER_B).length).toBeGreaterThanOrEqual(2)

    // Both signers vote B out (two of two votes); B stops sealing without a restart and A seals alone.
    expect(await a.rpc('clique_propose', [SIGNER_B, false])).toBe(true)
    expect(await b.rpc('clique_propose', [SIGNER_B, false])).toBe(true)
    await until(
      'B voted out',
      () => b.rpc<string[]>('clique_getSigners', ['latest']),
      (s) => s.length === 1,
      30_000,
    )
    expect(await b.rpc<string[]>('clique_getSigners', ['latest'])).toEqual([SIGNER_A])
    const dropped = await height(b)
    const end = dropped + 3
    await reach('B follows A alone', b, end, 30_000)
    expect(b.output()).toContain('the node key is no longer a clique signer')
    for (let n = target + 1; n <= end; n++) {
      const [fromA, fromB] = await Promise.all([blockAt(a, n), blockAt(b, n)])
      expect(fromB?.hash).toBe(fromA?.hash)
      sealers.push(await sealerOf(fromA!))
      // After the drop every block is A's and in turn, several in a row (never allowed with two signers).
      if (n > dropped) {
        expect(sealers[n - 1]).toBe(SIGNER_A)
        expect(fromA?.difficulty).toBe('0x2')
      }
    }
  }, 150_000)
})

describe('three clique signers over devp2p', () => {
  it('seal mostly in turn: an out-of-turn signer waits a random delay first (Besu: up to (3/2 + 1) x 500 ms)', async () => {
    const keyC = `0x${'c3'.repeat(32)}` as const
    const signers = [SIGNER_A, SIGNER_B, privateKeyToAddress(keyC).toLowerCase()].sort()
    const genesisFile = join(dir, 'clique3.json')
    writeCliqueGenesis(genesisFile, 1984, signers, { blockperiodseconds: 1, epochlength: 30000 })
    const start = (name: string, key: Hex, extra: string[]) => startSigner(genesisFile, `${name}3`, key, extra)
    const a = await start('a', KEY_A, [])
    const enodeA = (await a.rpc<{ enode: string }>('admin_nodeInfo')).enode
    const b = await start('b', KEY_B, ['--bootnodes', enodeA])
    const c = await start('c', keyC, ['--bootnodes', enodeA])
    await until(
      'A peers with B and C',
      () => a.rpc<unknown[]>('admin_peers'),
      (p) => p.length === 2,
    )
    const from = (await height(a)) + 1
    const to = from + 11
    await reach('A grows', a, to + 1, 60_000)
    await reach('B follows', b, to, 30_000)
    await reach('C follows', c, to, 30_000)
    let inTurn = 0
    for (let n = from; n <= to; n++) {
      const blocks = await Promise.all([blockAt(a, n), blockAt(b, n), blockAt(c, n)])
      expect(blocks[1]?.hash).toBe(blocks[0]?.hash)
      expect(blocks[2]?.hash).toBe(blocks[0]?.hash)
      const sealer = await sealerOf(blocks[0]!)
      const isInTurn = signers[n % 3] === sealer
      expect(blocks[0]!.difficulty).toBe(isInTurn ? '0x2' : '0x1')
      if (isInTurn) inTurn++
    }
    // Most blocks in turn (12 of 12 and 10 of 12 on an idle machine; the exact delays are unit-tested):
    // without the delay every signer seals at each period and out-of-turn blocks race the in-turn one.
    expect(inTurn).toBeGreaterThanOrEqual(7)
  }, 150_000)
})
