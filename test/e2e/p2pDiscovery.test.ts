/**
 * discv4 between compiled nodes on loopback: B and C know only bootnode A, yet find and connect to
 * each other through A's neighbour answers.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type StartedNode, startNode } from './harness.ts'

const GENESIS = {
  config: { chainId: 4243, londonBlock: 0, terminalTotalDifficulty: 0, shanghaiTime: 0, cancunTime: 0 },
  gasLimit: '0x1c9c380',
  difficulty: '0x0',
  baseFeePerGas: '0x3b9aca00',
  alloc: {},
}

describe('discovery', () => {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-disc-'))
  const nodes: StartedNode[] = []
  afterAll(async () => {
    for (const n of nodes) await n.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  it('connects two nodes that only share a bootnode', async () => {
    const genesisFile = join(dir, 'genesis.json')
    writeFileSync(genesisFile, JSON.stringify(GENESIS))
    const start = async (args: string[]) => {
      const n = await startNode({
        args: ['--genesis-file', genesisFile, '--rpc-http-api', 'NET,ADMIN', '--p2p-port', '0', ...args],
      })
      nodes.push(n)
      return n
    }
    const a = await start([])
    const enodeA = (await a.rpc<{ enode: string }>('admin_nodeInfo')).enode
    expect(enodeA).not.toContain('discport')
    const b = await start(['--bootnodes', enodeA])
    const idOfB = (await b.rpc<{ id: string }>('admin_nodeInfo')).id
    const c = await start(['--bootnodes', enodeA])
    let ids: string[] = []
    for (let i = 0; i < 300 && !ids.includes(`0x${idOfB}`); i++) {
      await Bun.sleep(100)
      ids = (await c.rpc<{ id: string }[]>('admin_peers')).map((p) => p.id)
    }
    expect(ids).toContain(`0x${idOfB}`)
  }, 60_000)
})
