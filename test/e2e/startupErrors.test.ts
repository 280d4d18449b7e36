/**
 * Mistakes at start get a message naming them before anything listens: one port for two listeners,
 * an unwritable --config-out; and a node that will make no blocks says why.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { genesisExtraData } from '../../src/consensus/bftExtraData.ts'
import { bytesToHex } from '../../src/primitives/hex.ts'
import { runToExit, startNode } from './harness.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-start-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('basalt run refuses at once', () => {
  it('one port for the HTTP and WebSocket listeners, naming both options', async () => {
    expect(await runToExit(['--rpc-http-port', '18546', '--rpc-ws-port', '18546'])).toEqual({
      code: 2,
      stderr:
        'basalt: --rpc-http-port and --rpc-ws-port are both 18546: each listener needs its own port (the HTTP port accepts WebSocket upgrades too: --rpc-ws-enabled=false needs no second port)',
    })
  })

  it('a --config-out in a missing directory, before the node starts', async () => {
    const file = join(dir, 'missing', 'out.json')
    expect(await runToExit(['--rpc-http-port', '0', '--rpc-ws-port', '0', '--config-out', file])).toEqual({
      code: 2,
      stderr: `basalt: Cannot write --config-out ${file}: directory ${join(dir, 'missing')} does not exist`,
    })
  })

  it('a QBFT genesis whose extraData lists no validators', async () => {
    const genesis = join(dir, 'qbft-empty.json')
    const config = { chainId: 4242, londonBlock: 0, qbft: { blockperiodseconds: 1, epochlength: 30000 } }
    writeFileSync(genesis, JSON.stringify({ config, gasLimit: '0x1c9c380', difficulty: '0x1', alloc: {} }))
    const { code, stderr } = await runToExit([
      '--genesis-file',
      genesis,
      '--p2p-enabled=false',
      '--rpc-http-port',
      '0',
      '--rpc-ws-enabled=false',
    ])
    expect(code).not.toBe(0)
    expect(stderr).toContain('the genesis extraData is not qbft extraData')
  })
})

describe('basalt run logs', () => {
  it("the level names in colour with Besu's --color-enabled, and without it when the log is no terminal", async () => {
    const colored = await startNode({ args: ['--color-enabled'] })
    const plain = await startNode({ args: ['--color-enabled=false'] })
    try {
      expect(colored.output()).toMatch(/\x1b\[32mINFO \x1b\[0m \[node\] node started/)
      expect(plain.output()).toMatch(/ INFO {2}\[node\] node started/)
      expect(plain.output()).not.toContain('\x1b[')
    } finally {
      await colored.cleanup()
      await plain.cleanup()
    }
  })

  it('the WebSocket listener with a ws:// address', async () => {
    const node = await startNode()
    try {
      expect(node.output()).toMatch(/listening url=ws:\/\/127\.0\.0\.1:\d+/)
      expect(node.output()).toMatch(/listening url=http:\/\/127\.0\.0\.1:\d+/)
    } finally {
      await node.cleanup()
    }
  })

  it('why no block comes on a QBFT genesis whose validators do not include this node', async () => {
    const genesis = join(dir, 'qbft.json')
    const config = { chainId: 4242, londonBlock: 0, qbft: { blockperiodseconds: 1, epochlength: 30000 } }
    const extraData = bytesToHex(genesisExtraData('qbft', [new Uint8Array(20).fill(0x11)]))
    writeFileSync(genesis, JSON.stringify({ config, extraData, gasLimit: '0x1c9c380', difficulty: '0x1', alloc: {} }))
    const node = await startNode({ args: ['--genesis-file', genesis] })
    try {
      await Bun.sleep(300)
      expect(node.output()).toContain('is not one of the 1 validators (0x1111111111111111111111111111111111111111)')
    } finally {
      await node.cleanup()
    }
  })

  it('why no block comes on a clique genesis without --miner-enabled', async () => {
    const genesis = join(dir, 'clique.json')
    const config = { chainId: 4243, londonBlock: 0, clique: { period: 1, epoch: 30000 } }
    const extraData = `0x${'00'.repeat(32)}${'11'.repeat(20)}${'00'.repeat(65)}`
    writeFileSync(genesis, JSON.stringify({ config, extraData, gasLimit: '0x1c9c380', difficulty: '0x1', alloc: {} }))
    const node = await startNode({ args: ['--genesis-file', genesis] })
    try {
      expect(node.output()).toContain('no block will be produced reason="the genesis asks for clique sealing')
    } finally {
      await node.cleanup()
    }
    // With --miner-enabled, a node key that is not the signer (0x11…11) seals nothing either.
    const miner = await startNode({ args: ['--genesis-file', genesis, '--miner-enabled'] })
    try {
      expect(miner.output()).toMatch(
        /no block will be produced reason="the node key's address 0x[0-9a-f]{40} is not a clique signer"/,
      )
      await Bun.sleep(1_500)
      expect(await miner.rpc('eth_blockNumber')).toBe('0x0')
      expect(miner.output()).not.toContain('sealing failed')
    } finally {
      await miner.cleanup()
    }
  })
})
