/**
 * Sends with each client's default fees keep working on a quiet dev chain. Near-empty blocks lower
 * the base fee by 12.5% each; without the dev network's base-fee floor and the oracle's lower bound
 * the default max fee of viem, ethers and cast fell below the 1000 wei minimum after about 110 sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync } from 'node:fs'
import { JsonRpcProvider, Wallet } from 'ethers'
import { type StartedNode, startNode, viemClients } from './harness.ts'

const TO = '0x000000000000000000000000000000000000bEEF'
const CAST = new URL('../../node_modules/@foundry-rs/cast-linux-amd64/bin/cast', import.meta.url).pathname
/** Enough blocks for 1 gwei to decay past 1000 wei (104 empty blocks) with room to spare. */
const VIEM_SENDS = 300
let node: StartedNode

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-ws-enabled=false'] })
})
afterAll(() => node?.cleanup())

async function baseFee(): Promise<bigint> {
  return BigInt((await node.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false])).baseFeePerGas)
}

describe('default-fee sends on a fresh dev chain', () => {
  it(`accepts ${VIEM_SENDS} viem sends in a row with viem's default fees`, async () => {
    const { wallet, client } = viemClients(node, 3)
    const deadline = Date.now() + 90_000
    let sent = 0
    for (; sent < VIEM_SENDS && Date.now() < deadline; sent++) {
      const hash = await wallet.sendTransaction({ to: TO, value: 1n })
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10, timeout: 10_000 })
      expect(receipt.status).toBe('success')
    }
    expect(sent).toBe(VIEM_SENDS)
    expect(await baseFee()).toBe(1000n)
  }, 120_000)

  it("accepts ethers' default fees at the floor", async () => {
    expect(await baseFee()).toBe(1000n)
    const provider = new JsonRpcProvider(node.url, 1337, { staticNetwork: true, cacheTimeout: -1 })
    const wallet = new Wallet(node.config.accounts[4].privateKey, provider)
    for (let i = 0; i < 20; i++) {
      const tx = await wallet.sendTransaction({ to: TO, value: 1n })
      expect((await tx.wait(1, 10_000))?.status).toBe(1)
    }
    provider.destroy()
  }, 60_000)

  it.skipIf(!existsSync(CAST))(
    "accepts cast's default fees at the floor",
    async () => {
      expect(await baseFee()).toBe(1000n)
      for (let i = 0; i < 3; i++) {
        const key = node.config.accounts[5].privateKey
        const proc = Bun.spawn([CAST, 'send', '--rpc-url', node.url, '--private-key', key, TO, '--value', '1'], {
          stdout: 'pipe',
          stderr: 'pipe',
        })
        const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000)
        const code = await proc.exited
        clearTimeout(timer)
        expect([code, await new Response(proc.stderr as ReadableStream).text()]).toEqual([0, ''])
      }
    },
    60_000,
  )

  it('suggests a tip that lifts the next base fee to --min-gas-price', async () => {
    const raised = await startNode({ args: ['--rpc-ws-enabled=false', '--min-gas-price', '5000000000'] })
    try {
      const tip = BigInt(await raised.rpc<string>('eth_maxPriorityFeePerGas'))
      const next = BigInt(await raised.rpc<string>('eth_baseFee'))
      expect(next + tip).toBe(5_000_000_000n)
      expect(BigInt(await raised.rpc<string>('eth_gasPrice'))).toBe(5_000_000_000n)
    } finally {
      await raised.cleanup()
    }
  }, 30_000)
})
