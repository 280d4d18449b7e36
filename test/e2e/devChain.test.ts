import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createWalletClient, defineChain, http, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type StartedNode, startNode, viemClients } from './harness.ts'

let node: StartedNode
beforeAll(async () => {
  node = await startNode()
})
afterAll(async () => {
  await node?.cleanup()
})

describe('basalt run (dev chain)', () => {
  // Start-up time is measured by the benchmark (bench's cold start row), not here: a bound in a test
  // fails on a loaded machine and says nothing about the executable.
  it('answers its first request on a new data path', async () => {
    const fresh = await startNode()
    try {
      expect(await fresh.rpc('eth_blockNumber')).toBe('0x0')
    } finally {
      await fresh.cleanup()
    }
  })

  it('answers chain id 1337 and network id 2018', async () => {
    expect(await node.rpc('eth_chainId')).toBe('0x539')
    expect(await node.rpc('net_version')).toBe('2018')
  })

  it('mines a viem transfer at once and reports the new balance', async () => {
    const { wallet, client } = viemClients(node, 3)
    const to = '0x000000000000000000000000000000000000beef'
    const hash = await wallet.sendTransaction({ to, value: parseEther('1.5'), gas: 21000n })
    const receipt = await client.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(await client.getBalance({ address: to })).toBe(parseEther('1.5'))
  })

  it('has the receipt at the first poll after eth_sendRawTransaction answers, for one sender after another', async () => {
    const wallet = devWallet(4)
    for (let nonce = 0; nonce < 10; nonce++) {
      const raw = await wallet.signTransaction({
        to: '0x000000000000000000000000000000000000cafe',
        value: 1n,
        gas: 21000n,
        nonce,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
      })
      const hash = await node.rpc<string>('eth_sendRawTransaction', [raw])
      const receipt = await node.rpc<{ status: string } | null>('eth_getTransactionReceipt', [hash])
      expect(receipt?.status).toBe('0x1')
    }
  })

  it('seals a burst of sends in shared blocks, every receipt there at the first poll', async () => {
    const wallet = devWallet(5)
    const raws: `0x${string}`[] = []
    for (let nonce = 0; nonce < 30; nonce++) {
      const to = '0x000000000000000000000000000000000000d00d'
      const fees = { maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n }
      raws.push(await wallet.signTransaction({ to, value: 1n, gas: 21000n, nonce, ...fees }))
    }
    const hashes: string[] = []
    for (const raw of raws) hashes.push(await node.rpc<string>('eth_sendRawTransaction', [raw]))
    const blocks = new Set<string>()
    for (const hash of hashes) {
      const receipt = await node.rpc<{ status: string; blockNumber: string } | null>('eth_getTransactionReceipt', [
        hash,
      ])
      expect(receipt?.status).toBe('0x1')
      blocks.add(receipt!.blockNumber)
    }
    expect(blocks.size).toBeLessThan(hashes.length)
  })
})

/** A viem wallet client signing with dev account `index`, on the node's dev chain. */
function devWallet(index: number) {
  const account = privateKeyToAccount(node.config.accounts[index].privateKey as `0x${string}`)
  const chain = defineChain({
    id: 1337,
    name: 'basalt',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  })
  return createWalletClient({ account, chain, transport: http() })
}
