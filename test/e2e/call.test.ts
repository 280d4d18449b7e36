import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { MerklePatriciaTrie, verifyMPTWithMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { Contract, JsonRpcProvider } from 'ethers'
import {
  type Abi,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  parseEther,
  toFunctionSelector,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { compileContract } from './contracts/compile.ts'
import { type StartedNode, startNode } from './harness.ts'

let node: StartedNode
let contract: `0x${string}`
const { abi, bytecode } = compileContract(new URL('./contracts/Revert.sol', import.meta.url).pathname, 'Revert')

const chain = () =>
  defineChain({
    id: 1337,
    name: 'basalt',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  })
const publicClient = () => createPublicClient({ chain: chain(), transport: http(), pollingInterval: 50 })
const localWallet = () =>
  createWalletClient({
    account: privateKeyToAccount(node.config.accounts[4].privateKey as `0x${string}`),
    chain: chain(),
    transport: http(),
  })

beforeAll(async () => {
  node = await startNode({ args: ['--dev-accounts-unlocked'] })
  const hash = await localWallet().deployContract({ abi: abi as Abi, bytecode })
  const receipt = await publicClient().waitForTransactionReceipt({ hash })
  contract = receipt.contractAddress!
})
afterAll(async () => {
  await node?.cleanup()
})

/** The revert error viem decodes from a failing read. */
async function viemRevert(functionName: string, args: unknown[] = []): Promise<ContractFunctionRevertedError> {
  const err = await publicClient()
    .readContract({ address: contract, abi: abi as Abi, functionName, args })
    .then(
      () => undefined,
      (e) => e,
    )
  expect(err).toBeInstanceOf(BaseError)
  const revert = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError)
  expect(revert).toBeInstanceOf(ContractFunctionRevertedError)
  return revert as ContractFunctionRevertedError
}

/** Sends `store(v)` from a local viem account, without explicit gas (so viem asks eth_estimateGas). */
const store = (v: bigint) =>
  localWallet().writeContract({ address: contract, abi: abi as Abi, functionName: 'store', args: [v] })
const calldata = (selector: string) => ({ to: contract, input: selector })
const SELECTOR = { failRequire: toFunctionSelector('failRequire()'), value: toFunctionSelector('value()') }

describe('eth_call', () => {
  it('reads what a viem write without explicit gas stored', async () => {
    const hash = await store(7n)
    expect((await publicClient().waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await publicClient().readContract({ address: contract, abi: abi as Abi, functionName: 'value' })).toBe(7n)
  })

  it('answers a revert with code 3, the revert bytes and the decoded reason', async () => {
    const res = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [calldata(SELECTOR.failRequire), 'latest'],
    })
    expect(res.json.error.code).toBe(3)
    expect(res.json.error.message).toBe('Execution reverted: reason')
    expect(res.json.error.data.startsWith('0x08c379a0')).toBe(true)
  })

  it('lets viem decode a require reason, a custom error and a panic', async () => {
    expect((await viemRevert('failRequire')).reason).toBe('reason')
    const custom = await viemRevert('failCustom')
    expect(custom.data?.errorName).toBe('Unauthorized')
    expect(custom.data?.args?.[1]).toBe(42n)
    const panic = await viemRevert('divide', [1n, 0n])
    expect(panic.data?.errorName).toBe('Panic')
    expect(panic.reason?.toLowerCase()).toContain('division')
    expect((await viemRevert('failAssert')).data?.args?.[0]).toBe(1n)
  })

  it('lets ethers read values and decode revert reasons', async () => {
    const provider = new JsonRpcProvider(node.url, 1337, { staticNetwork: true })
    const c = new Contract(contract, abi as never, provider)
    expect(await c.value()).toBe(7n)
    const err = await c.failRequire.staticCall().catch((e: unknown) => e)
    expect((err as { reason?: string }).reason).toBe('reason')
    const custom = await c.failCustom.staticCall().catch((e: { data?: string }) => e)
    expect(c.interface.parseError((custom as { data: string }).data)?.name).toBe('Unauthorized')
    provider.destroy()
  })

  it('applies state overrides without touching the chain', async () => {
    const slot0 = `0x${'00'.repeat(32)}`
    const overridden = await node.rpc<string>('eth_call', [
      calldata(SELECTOR.value),
      'latest',
      { [contract]: { stateDiff: { [slot0]: `0x${'00'.repeat(31)}63` } } },
    ])
    expect(BigInt(overridden)).toBe(99n)
    expect(BigInt(await node.rpc<string>('eth_call', [calldata(SELECTOR.value), 'latest']))).toBe(7n)
  })

  it("returns memory grown past the interpreter's first allocation, byte for byte", async () => {
    // The executable's interpreter memory starts at 1 KiB (scripts/build.ts): MSTORE at 0x1fe0
    // grows it, MSTORE8 at 0x3ff writes the last byte of the first allocation, an MSTORE at 0, then
    // RETURN(0, 0x2000).
    const code = '0x602a611fe05260076103ff5361ff016000526120006000f3'
    const out = await node.rpc<string>('eth_call', [
      { to: '0x00000000000000000000000000000000000c0de1' },
      'latest',
      { '0x00000000000000000000000000000000000c0de1': { code } },
    ])
    const bytes = Buffer.from(out.slice(2), 'hex')
    expect(bytes.length).toBe(0x2000)
    expect(bytes[0x3ff]).toBe(7)
    expect(bytes[0x1fff]).toBe(0x2a)
    expect(bytes.readUInt16BE(30)).toBe(0xff01)
    expect(bytes.reduce((sum, b) => sum + b, 0)).toBe(7 + 0x2a + 0xff + 0x01)
  })

  it("answers a malformed call object with Besu's text for the call parameter", async () => {
    const res = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: contract, gas: 'lots' }, 'latest'],
    })
    expect(res.json.error).toEqual({ code: -32602, message: 'Invalid call params' })
    // Without a block Besu reports the block, which it requires and reads first.
    const noBlock = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 2,
      method: 'eth_call',
      params: [{ to: contract, gas: 'lots' }],
    })
    expect(noBlock.json.error).toEqual({ code: -32602, message: 'Invalid block, unable to parse RLP' })
  })
})

describe('eth_estimateGas', () => {
  it('estimates a nested call enough for the 63/64 rule', async () => {
    const client = publicClient()
    const account = getAddress(node.config.accounts[4].address)
    const gas = await client.estimateContractGas({
      address: contract,
      abi: abi as Abi,
      functionName: 'nested',
      args: [6n],
      account,
    })
    const hash = await localWallet().writeContract({
      address: contract,
      abi: abi as Abi,
      functionName: 'nested',
      args: [6n],
      gas,
    })
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success')
  })

  it('answers a revert with code 3 and the revert data', async () => {
    const res = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_estimateGas',
      params: [calldata(SELECTOR.failRequire)],
    })
    expect(res.json.error.code).toBe(3)
    expect(res.json.error.data.startsWith('0x08c379a0')).toBe(true)
  })

  it('estimates a plain transfer at 21000 for ethers', async () => {
    const provider = new JsonRpcProvider(node.url, 1337, { staticNetwork: true })
    expect(
      await provider.estimateGas({
        from: node.config.accounts[0].address,
        to: node.config.accounts[1].address,
        value: 1n,
      }),
    ).toBe(21000n)
    provider.destroy()
  })
})

describe('eth_createAccessList', () => {
  it('lists the contract with the slots a store touches', async () => {
    const store = encodeFunctionData({ abi: abi as Abi, functionName: 'store', args: [5n] })
    const r = await node.rpc<{ accessList: { address: string; storageKeys: string[] }[]; gasUsed: string }>(
      'eth_createAccessList',
      [{ from: node.config.accounts[4].address, to: contract, input: store }],
    )
    expect(r.accessList.map((e) => e.address)).toEqual([contract.toLowerCase()])
    expect(r.accessList[0].storageKeys).toContain(`0x${'00'.repeat(32)}`)
    expect(r.accessList[0].storageKeys.length).toBe(2)
    expect(BigInt(r.gasUsed)).toBeGreaterThan(21000n)
  })

  it('reports a revert in the error field', async () => {
    const r = await node.rpc<{ error?: string }>('eth_createAccessList', [calldata(SELECTOR.failRequire)])
    expect(r.error).toBe('execution reverted')
  })
})

describe('eth_getProof', () => {
  it('proves the contract account and its slot against the block state root', async () => {
    const hash = await store(9n)
    await publicClient().waitForTransactionReceipt({ hash })
    const block = await node.rpc<{ stateRoot: string; number: string }>('eth_getBlockByNumber', ['latest', false])
    const proof = await node.rpc<{
      accountProof: string[]
      balance: string
      nonce: string
      storageHash: string
      codeHash: string
      storageProof: { key: string; value: string; proof: string[] }[]
    }>('eth_getProof', [contract, ['0x0', `0x${'00'.repeat(31)}01`], block.number])
    const toBytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'))
    const value = await verifyMPTWithMerkleProof(
      new MerklePatriciaTrie({ useKeyHashing: true }),
      toBytes(block.stateRoot),
      toBytes(contract),
      proof.accountProof.map(toBytes),
    )
    const [nonce, , storageRoot, codeHash] = RLP.decode(value!) as Uint8Array[]
    expect(BigInt(`0x${Buffer.from(nonce).toString('hex') || '0'}`)).toBe(BigInt(proof.nonce))
    expect(`0x${Buffer.from(storageRoot).toString('hex')}`).toBe(proof.storageHash)
    expect(`0x${Buffer.from(codeHash).toString('hex')}`).toBe(proof.codeHash)
    // Keys come back as quantities, a full 32-byte spelling too (Besu's StorageEntryProof).
    expect(proof.storageProof.map((s) => s.key)).toEqual(['0x0', '0x1'])
    const slot = await verifyMPTWithMerkleProof(
      new MerklePatriciaTrie({ useKeyHashing: true }),
      storageRoot,
      new Uint8Array(32),
      proof.storageProof[0].proof.map(toBytes),
    )
    expect(BigInt(`0x${Buffer.from(RLP.decode(slot!) as Uint8Array).toString('hex')}`)).toBe(
      BigInt(proof.storageProof[0].value),
    )
  })

  it('reads several slots at once with eth_getStorageValues', async () => {
    const r = await node.rpc<Record<string, string[]>>('eth_getStorageValues', [
      { [contract]: ['0x0', `0x${'00'.repeat(31)}01`] },
    ])
    const slot0 = await node.rpc<string>('eth_getStorageAt', [contract, '0x0', 'latest'])
    expect(r[contract.toLowerCase()]).toEqual([slot0, `0x${'00'.repeat(32)}`])
  })
})

describe('eth_sendTransaction', () => {
  it('signs with an unlocked dev account, filling nonce, fees and gas', async () => {
    const from = getAddress(node.config.accounts[5].address)
    const wallet = createWalletClient({ account: from, chain: chain(), transport: http() })
    const to = '0x000000000000000000000000000000000000dead'
    const hash = await wallet.sendTransaction({ to, value: parseEther('0.5') })
    expect((await publicClient().waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await publicClient().getBalance({ address: to })).toBe(parseEther('0.5'))
  })

  it("refuses an account that is not unlocked with Besu's -32604", async () => {
    const res = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendTransaction',
      params: [{ from: contract, to: contract }],
    })
    expect(res.json.error.code).toBe(-32604)
  })
})

describe('eth_simulateV1', () => {
  it('takes addresses and code without 0x, as Besu does', async () => {
    const target = 'c0dec0dec0dec0dec0dec0dec0dec0dec0dec0de'
    // PUSH1 0x2a PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns 42.
    const code = '602a60005260206000f3'
    const [block] = await node.rpc<{ calls: { returnData: string; status: string }[] }[]>('eth_simulateV1', [
      { blockStateCalls: [{ stateOverrides: { [target]: { code } }, calls: [{ to: target }] }] },
      'latest',
    ])
    expect(block.calls[0].status).toBe('0x1')
    expect(BigInt(block.calls[0].returnData)).toBe(42n)
    // Storage overrides too: slot 0 of the test contract, read by value().
    const slot0 = '00'.repeat(32)
    const [read] = await node.rpc<{ calls: { returnData: string }[] }[]>('eth_simulateV1', [
      {
        blockStateCalls: [
          {
            stateOverrides: { [contract.slice(2)]: { stateDiff: { [slot0]: `${'00'.repeat(31)}63` } } },
            calls: [{ to: contract.slice(2), input: SELECTOR.value.slice(2) }],
          },
        ],
      },
      'latest',
    ])
    expect(BigInt(read.calls[0].returnData)).toBe(99n)
  })

  it("refuses blocks out of order with Besu's message", async () => {
    const head = BigInt(await node.rpc<string>('eth_blockNumber'))
    const res = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_simulateV1',
      params: [{ blockStateCalls: [{ blockOverrides: { number: `0x${head.toString(16)}` } }] }, 'latest'],
    })
    expect(res.json.error).toEqual({
      code: -38020,
      message: `Block number is invalid. Trying to add a call at block number ${head}, while current block number is ${head}.`,
    })
  })
})
