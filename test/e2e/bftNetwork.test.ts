/**
 * The network `operator generate-blockchain-config` writes, run as it is meant to: 4 validators and
 * 1 non-validator, compiled binaries on loopback with static peers, a block a second. Blocks reach
 * the non-validator over eth/68; with one validator killed (-9) the other three go on; restarted,
 * it syncs and every node holds the same hashes; with two killed the chain halts, and it resumes
 * once they return. For QBFT (istanbul/100) and IBFT 2.0 (IBF/1). A network migrating from IBFT 2.0
 * to QBFT (`qbft.startBlock`) decides its heights over IBF/1, then over istanbul/100, and all its
 * nodes hold the same chain across the start block.
 */
import { afterAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import type { Hex } from 'viem'
import { BFT_MIX_HASH, generateBftNetwork, reservedPort, type StartedNode, startNode } from './harness.ts'

// A set-up bound, not the subject: the waits below are each bounded, and their sum is more than
// 180 s. The IBFT 2.0 run took 55-98 s on a loaded 2-core machine, most of it in the round changes
// of the heights whose proposer is down (3 s, then 6 s, 12 s: the timeout doubles each round).
setDefaultTimeout(300_000)

const dir = mkdtempSync(join(tmpdir(), 'basalt-bftnet-'))
const running = new Set<StartedNode>()
afterAll(async () => {
  await Promise.all([...running].map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

interface Member {
  /** The validator's key file; none for the non-validator (it makes its own node key). */
  keyFile?: string
  dataPath: string
  p2pPort: number
  node?: StartedNode
}

// IBFT 2.0's round 0 runs from the height's start (Besu's), so its timeout covers the block
// period too: 3 s leaves round 0 the 2 s after the block is due that QBFT's has.
const SECTIONS = {
  qbft: { blockperiodseconds: 1, epochlength: 30000, requesttimeoutseconds: 2 },
  ibft2: { blockperiodseconds: 1, epochlength: 30000, requesttimeoutseconds: 3 },
}
/** The block from which the migrating network runs QBFT. */
const START_BLOCK = 4

async function generate(
  kind: 'qbft' | 'ibft2' | 'migration',
): Promise<{ genesisFile: string; members: Member[]; staticNodes: string }> {
  const out = join(dir, kind)
  const sections =
    kind === 'migration'
      ? { ibft2: SECTIONS.ibft2, qbft: { ...SECTIONS.qbft, startBlock: START_BLOCK } }
      : { [kind]: SECTIONS[kind] }
  const genesis = {
    config: {
      chainId: 1981,
      berlinBlock: 0,
      londonBlock: 0,
      shanghaiTime: 0,
      ...sections,
    },
    gasLimit: '0x1fffffffffffff',
    difficulty: '0x1',
    mixHash: BFT_MIX_HASH,
    baseFeePerGas: '0x3b9aca00',
    alloc: { f39fd6e51aad88f6f4ce6ab8827279cfffb92266: { balance: '0xad78ebc5ac6200000' } },
  }
  const { genesisFile, keyDirs } = generateBftNetwork(out, genesis, 4)
  expect(keyDirs).toHaveLength(4)
  const members: Member[] = []
  for (const [i, keyDir] of [...keyDirs, undefined].entries())
    members.push({
      keyFile: keyDir && join(keyDir, 'key.priv'),
      dataPath: join(dir, `${kind}-data-${i}`),
      p2pPort: await reservedPort(),
    })
  const enodes = keyDirs.map((k, i) => {
    const id = readFileSync(join(k, 'key.pub'), 'utf8').trim().replace(/^0x/, '')
    return `enode://${id}@127.0.0.1:${members[i].p2pPort}`
  })
  const staticNodes = join(dir, `${kind}-static-nodes.json`)
  writeFileSync(staticNodes, JSON.stringify(enodes))
  return { genesisFile, members, staticNodes }
}

async function head(node: StartedNode): Promise<number> {
  return Number(await node.rpc<Hex>('eth_blockNumber'))
}

async function waitHeight(node: StartedNode, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (let i = 0; i < 2000; i++) {
    if ((await head(node)) >= n) return
    if (Date.now() > deadline) break
    await Bun.sleep(200)
  }
  throw new Error(
    `block ${n} did not come in ${timeoutMs} ms (head ${await head(node)}):\n${node.output().slice(-3000)}`,
  )
}

async function hashAt(node: StartedNode, n: number): Promise<string> {
  const block = await node.rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
  return block.hash
}

function startArgs(genesisFile: string, staticNodes: string, m: Member): string[] {
  const args = ['--genesis-file', genesisFile, '--rpc-http-api', 'ETH,NET,ADMIN,QBFT,IBFT']
  args.push('--p2p-host', '127.0.0.1', '--p2p-port', String(m.p2pPort), '--static-nodes-file', staticNodes)
  args.push('--discovery-enabled=false', '--rpc-ws-enabled=false')
  if (m.keyFile) args.push('--node-private-key-file', m.keyFile)
  return args
}

describe.each(['qbft', 'ibft2'] as const)('a 4-validator %s network over devp2p', (kind) => {
  it('produces blocks, survives one validator down, halts with two down and resumes', async () => {
    const { genesisFile, members, staticNodes } = await generate(kind)
    const start = async (m: Member) => {
      const args = startArgs(genesisFile, staticNodes, m)
      m.node = await startNode({ args, dataPath: m.dataPath, timeoutMs: 30_000 })
      running.add(m.node)
      return m.node
    }
    const kill = async (m: Member) => {
      await m.node!.stop('SIGKILL')
      running.delete(m.node!)
    }
    const nodes = await Promise.all(members.map(start))
    const observer = nodes[4]
    // Blocks reach the node that seals none over eth/68.
    await waitHeight(observer, 5, 60_000)

    await kill(members[3])
    const before = await head(nodes[0])
    await waitHeight(nodes[0], before + 5, 60_000)

    const back = await start(members[3])
    const target = await head(nodes[0])
    await waitHeight(back, target, 60_000)
    const hashes = await Promise.all([...nodes.slice(0, 3), back, observer].map((n) => hashAt(n, target)))
    expect(new Set(hashes).size).toBe(1)

    // Two of four down: 2 commit seals where 3 are needed, so no block comes.
    await Promise.all([kill(members[2]), kill(members[3])])
    await Bun.sleep(1500)
    const halted = await head(nodes[0])
    await Bun.sleep(4000)
    expect(await head(nodes[0])).toBe(halted)
    expect(await head(observer)).toBeLessThanOrEqual(halted)

    await Promise.all([start(members[2]), start(members[3])])
    await waitHeight(nodes[0], halted + 3, 90_000)
    await waitHeight(observer, halted + 3, 30_000)
    const last = halted + 3
    for (const m of members) await waitHeight(m.node!, last, 30_000)
    const final = await Promise.all(members.map((m) => hashAt(m.node!, last)))
    expect(new Set(final).size).toBe(1)
  })
})

describe('a 4-validator network migrating from IBFT 2.0 to QBFT at block 4', () => {
  it('decides the heights on both sides of the start block, and every node holds the same chain', async () => {
    const { genesisFile, members, staticNodes } = await generate('migration')
    const nodes = await Promise.all(
      members.map(async (m) => {
        m.node = await startNode({
          args: startArgs(genesisFile, staticNodes, m),
          dataPath: m.dataPath,
          timeoutMs: 30_000,
        })
        running.add(m.node)
        return m.node
      }),
    )
    const last = START_BLOCK + 3
    // The non-validator follows over eth/68, across the start block too.
    for (const node of nodes) await waitHeight(node, last, 90_000)
    for (let n = 1; n <= last; n++) {
      const hashes = await Promise.all(nodes.map((node) => hashAt(node, n)))
      expect([n, new Set(hashes).size]).toEqual([n, 1])
      const block = await nodes[4].rpc<{ extraData: Hex }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
      // IBFT 2.0 writes "no vote" as an empty string (0x80), QBFT as an empty list (0xc0).
      const [, , vote] = RLP.decode(block.extraData) as unknown as [unknown, unknown, Uint8Array | unknown[]]
      expect([n, Array.isArray(vote)]).toEqual([n, n >= START_BLOCK])
    }
    const validators = await nodes[0].rpc<string[]>('qbft_getValidatorsByBlockNumber', ['latest'])
    expect(validators).toHaveLength(4)
    expect(await nodes[0].rpc('ibft_getValidatorsByBlockNumber', ['0x1'])).toEqual(validators)
  })
})
