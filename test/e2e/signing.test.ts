/**
 * Node-side signing on the compiled binary as wallets without keys use it: viem's wallet client with
 * a JSON-RPC account and ethers' JsonRpcSigner sign messages, typed data and transactions with the
 * node's unlocked dev accounts, and send through EIP-7966's eth_sendRawTransactionSync.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { JsonRpcProvider, Transaction, verifyMessage, verifyTypedData } from 'ethers'
import { createWalletClient, defineChain, http, recoverMessageAddress, recoverTypedDataAddress } from 'viem'
import { type StartedNode, startNode } from './harness.ts'

const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const DEV1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const STRANGER = '0x000000000000000000000000000000000000dead'
const DOMAIN = { name: 'Ether Mail', version: '1', chainId: 1337, verifyingContract: `0x${'cc'.repeat(20)}` } as const
const TYPES = {
  Person: [
    { name: 'name', type: 'string' },
    { name: 'wallet', type: 'address' },
  ],
  Mail: [
    { name: 'from', type: 'Person' },
    { name: 'to', type: 'Person' },
    { name: 'contents', type: 'string' },
  ],
} as const
const MAIL = {
  from: { name: 'Cow', wallet: DEV0 },
  to: { name: 'Bob', wallet: DEV1 },
  contents: 'Hello, Bob!',
} as const

let node: StartedNode

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-ws-enabled=false', '--dev-accounts-unlocked'] })
})
afterAll(async () => {
  await node?.cleanup()
})

function walletFor(account: `0x${string}`) {
  const chain = defineChain({
    id: 1337,
    name: 'basalt',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  })
  return createWalletClient({ account, chain, transport: http(node.url) })
}

describe('viem wallet client with a JSON-RPC account', () => {
  it('signMessage and signTypedData give signatures that recover the account', async () => {
    const wallet = walletFor(DEV0)
    const signature = await wallet.signMessage({ message: 'hello' })
    expect((await recoverMessageAddress({ message: 'hello', signature })).toLowerCase()).toBe(DEV0)
    const typed = await wallet.signTypedData({ domain: DOMAIN, types: TYPES, primaryType: 'Mail', message: MAIL })
    const signer = await recoverTypedDataAddress({
      domain: DOMAIN,
      types: TYPES,
      primaryType: 'Mail',
      message: MAIL,
      signature: typed,
    })
    expect(signer.toLowerCase()).toBe(DEV0)
  })

  it('signTransaction signs without sending; sendRawTransactionSync answers the receipt', async () => {
    const wallet = walletFor(DEV1)
    const request = await wallet.prepareTransactionRequest({ to: STRANGER, value: 5n })
    const raw = await wallet.signTransaction(request)
    expect(await node.rpc('eth_getTransactionCount', [DEV1, 'pending'])).toBe('0x0')
    const receipt = await wallet.sendRawTransactionSync({ serializedTransaction: raw })
    expect(receipt.status).toBe('success')
    expect(receipt.from.toLowerCase()).toBe(DEV1)
    expect(await node.rpc('eth_getBalance', [STRANGER, 'latest'])).toBe('0x5')
    const found = await node.rpc<{ hash: string }>('eth_getTransactionBySenderAndNonce', [DEV1, '0x0'])
    expect(found.hash).toBe(receipt.transactionHash)
  })

  it('refuses an account the node holds no key for, as Anvil does', async () => {
    await expect(walletFor(STRANGER).signMessage({ message: 'hello' })).rejects.toThrow(/No Signer available/)
  })
})

describe('ethers JsonRpcSigner', () => {
  it('signMessage, signTypedData and signTransaction sign with the node account', async () => {
    const provider = new JsonRpcProvider(node.url, 1337, { staticNetwork: true })
    const signer = await provider.getSigner(DEV1)
    const signature = await signer.signMessage('hello from ethers')
    expect(verifyMessage('hello from ethers', signature).toLowerCase()).toBe(DEV1)
    const types = { Person: [...TYPES.Person], Mail: [...TYPES.Mail] }
    const typed = await signer.signTypedData(DOMAIN, types, MAIL)
    expect(verifyTypedData(DOMAIN, types, MAIL, typed).toLowerCase()).toBe(DEV1)
    const raw = await signer.signTransaction({ to: STRANGER, value: 1n })
    expect(Transaction.from(raw).from?.toLowerCase()).toBe(DEV1)
    provider.destroy()
  })
})
