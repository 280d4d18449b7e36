/** ADMIN group: node info from the node key (kept in the data path), no peers, P2P refusals. */
import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { type StartedNode, startNode } from './harness.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-admin-'))
const nodes: StartedNode[] = []
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

async function start(args: string[], dataPath: string) {
  const n = await startNode({ dataPath, args: ['--rpc-http-api', 'ADMIN,ETH', ...args] })
  nodes.push(n)
  return n
}

describe('admin', () => {
  it('creates the node key in the data path and keeps the same node id across restarts', async () => {
    const dataPath = join(dir, 'a')
    const first = await start([], dataPath)
    const info = await first.rpc<{ id: string; enode: string }>('admin_nodeInfo')
    expect(existsSync(join(dataPath, 'key'))).toBe(true)
    const key = readFileSync(join(dataPath, 'key'), 'utf8').trim().replace(/^0x/, '')
    expect(info.id).toBe(
      Buffer.from(secp256k1.getPublicKey(Buffer.from(key, 'hex'), false).subarray(1)).toString('hex'),
    )
    expect(info.enode).toStartWith(`enode://${info.id}@`)
    await first.stop()
    const second = await start([], dataPath)
    expect((await second.rpc<{ id: string }>('admin_nodeInfo')).id).toBe(info.id)
  })

  it('reads the key from --node-private-key-file', async () => {
    const keyFile = join(dir, 'given.key')
    const priv = '0x'.concat('11'.repeat(32))
    writeFileSync(keyFile, priv)
    const n = await start(['--node-private-key-file', keyFile], join(dir, 'b'))
    const expected = Buffer.from(
      secp256k1.getPublicKey(Buffer.from('11'.repeat(32), 'hex'), false).subarray(1),
    ).toString('hex')
    expect((await n.rpc<{ id: string }>('admin_nodeInfo')).id).toBe(expected)
    expect(await n.rpc('admin_peers')).toEqual([])
    const { json } = await n.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'admin_addPeer',
      params: ['enode://00@127.0.0.1:30303'],
    })
    expect(json.error.code).toBe(-32000)
  })
})
