/**
 * Besu's `--revert-reason-enabled`: a node run with it records what each reverted transaction's
 * REVERT returned and shows it as the receipt's `revertReason` (eth_getTransactionReceipt,
 * eth_getBlockReceipts, GraphQL), across restarts and for blocks it imports; without it, receipts
 * have no such field. The recorded bytes must be the ones eth_call answers for the same call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Abi, encodeFunctionData, type Hex } from 'viem'
import { compileContract } from './contracts/compile.ts'
import { runBasalt, type StartedNode, startNode } from './harness.ts'

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC objects are read field by field
type Json = Record<string, any>

const { abi, bytecode } = compileContract(new URL('./contracts/Revert.sol', import.meta.url).pathname, 'Revert')
const data = (functionName: string, args: unknown[] = []) => encodeFunctionData({ abi: abi as Abi, functionName, args })

/**
 * The calls sent as transactions, by name: three revert encodings, one success, an empty REVERT (a
 * nested call runs out of gas and Solidity passes on its empty return data) and a halt without any
 * REVERT (the top frame runs out of gas).
 */
const CALLS: Record<string, Hex> = {
  require: data('failRequire'),
  custom: data('failCustom'),
  panic: data('divide', [1n, 0n]),
  success: data('store', [5n]),
  emptyRevert: data('nested', [40n]),
  outOfGas: data('store', [6n]),
}
/** Explicit gas (an estimate would refuse the failing ones): 60,000 is too little for `nested(40)`, 30,000 for a new slot. */
const GAS: Record<string, Hex> = { emptyRevert: '0xea60', outOfGas: '0x7530' }

let node: StartedNode
let graphqlUrl: string
let contract: Hex
const hashes: Record<string, Hex> = {}

async function sendAll(n: StartedNode, to: Hex): Promise<Record<string, Hex>> {
  const from = n.config.accounts[0].address
  const out: Record<string, Hex> = {}
  for (const [name, input] of Object.entries(CALLS)) {
    const gas = GAS[name] ?? '0x30d40'
    out[name] = await n.rpc<Hex>('eth_sendTransaction', [{ from, to, data: input, gas }])
  }
  return out
}

const receipt = (n: StartedNode, hash: Hex) => n.rpc<Json>('eth_getTransactionReceipt', [hash])

/** Deploys the Revert contract from the first dev account; its address. */
async function deploy(n: StartedNode): Promise<Hex> {
  const from = n.config.accounts[0].address
  const hash = await n.rpc<Hex>('eth_sendTransaction', [{ from, data: bytecode, gas: '0x2dc6c0' }])
  return (await receipt(n, hash)).contractAddress
}

/** What eth_call answers as the revert data of `input` on the contract (the error's `data`). */
async function callRevertData(n: StartedNode, input: Hex): Promise<Hex> {
  const from = n.config.accounts[0].address
  const call = { from, to: contract, input }
  const res = await n.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [call, 'latest'] })
  expect(res.json.error?.code).toBe(3)
  return res.json.error.data
}

beforeAll(async () => {
  node = await startNode({
    args: ['--revert-reason-enabled', '--dev-accounts-unlocked', '--graphql-http-enabled', '--graphql-http-port', '0'],
  })
  const out = JSON.parse(readFileSync(join(node.dir, 'config-out.json'), 'utf8')) as { graphqlHttpPort: number }
  graphqlUrl = `http://127.0.0.1:${out.graphqlHttpPort}/graphql`
  contract = await deploy(node)
  Object.assign(hashes, await sendAll(node, contract))
})

afterAll(async () => {
  await node?.cleanup()
})

describe('--revert-reason-enabled', () => {
  it("shows each reverted transaction's REVERT bytes, as eth_call answers them", async () => {
    for (const name of ['require', 'custom', 'panic']) {
      const r = await receipt(node, hashes[name])
      expect(r.status).toBe('0x0')
      expect(r.revertReason).toBe(await callRevertData(node, CALLS[name]))
    }
    // Error(string) "reason", as Besu shows it: the ABI encoding, not the decoded text.
    expect((await receipt(node, hashes.require)).revertReason).toBe(
      '0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000067265617' +
        '36f6e0000000000000000000000000000000000000000000000000000',
    )
  })

  it('shows an empty REVERT as 0x, and leaves the field out of successes and of failures without a REVERT', async () => {
    const empty = await receipt(node, hashes.emptyRevert)
    expect(empty.status).toBe('0x0')
    expect(empty.revertReason).toBe('0x')
    const ok = await receipt(node, hashes.success)
    expect(ok.status).toBe('0x1')
    expect('revertReason' in ok).toBe(false)
    const halted = await receipt(node, hashes.outOfGas)
    expect(halted.status).toBe('0x0')
    expect('revertReason' in halted).toBe(false)
  })

  it('shows it in eth_getBlockReceipts and in GraphQL', async () => {
    const r = await receipt(node, hashes.custom)
    const block = await node.rpc<Json[]>('eth_getBlockReceipts', [r.blockNumber])
    expect(block.find((x) => x.transactionHash === hashes.custom)?.revertReason).toBe(r.revertReason)
    const res = await fetch(graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ a: transaction(hash: "${hashes.custom}") { status revertReason } b: transaction(hash: "${hashes.success}") { revertReason } }`,
      }),
    })
    const body = (await res.json()) as Json
    expect(body.data.a).toEqual({ status: '0x0', revertReason: r.revertReason })
    expect(body.data.b).toEqual({ revertReason: null })
  })

  it('keeps the recorded reasons across a restart, with or without the option', async () => {
    const before = await receipt(node, hashes.panic)
    await node.stop()
    const again = await startNode({ dataPath: node.dataPath, args: ['--dev-accounts-unlocked'] })
    try {
      expect((await receipt(again, hashes.panic)).revertReason).toBe(before.revertReason)
      // Blocks sealed without the option record nothing.
      const later = await sendAll(again, contract)
      const r = await receipt(again, later.require)
      expect(r.status).toBe('0x0')
      expect('revertReason' in r).toBe(false)
    } finally {
      await again.cleanup()
    }
    // Imported blocks: the importer records the reasons too when asked.
    const file = join(node.dir, 'chain.rlp')
    expect((await runBasalt(['blocks', 'export', '--data-path', node.dataPath, '--to', file])).code).toBe(0)
    const imported = join(node.dir, 'imported')
    const args = ['blocks', 'import', '--from', file, '--data-path', imported, '--revert-reason-enabled']
    const result = await runBasalt(args, 60_000)
    expect(result.code, result.out).toBe(0)
    const replay = await startNode({ dataPath: imported, args: ['--miner-enabled=false'] })
    try {
      expect((await receipt(replay, hashes.panic)).revertReason).toBe(before.revertReason)
      expect('revertReason' in (await receipt(replay, hashes.success))).toBe(false)
    } finally {
      await replay.cleanup()
    }
  })
})

describe('without --revert-reason-enabled', () => {
  it('records nothing: receipts have no revertReason (Besu’s default)', async () => {
    const plain = await startNode({ args: ['--dev-accounts-unlocked'] })
    try {
      const sent = await sendAll(plain, await deploy(plain))
      const r = await receipt(plain, sent.require)
      expect(r.status).toBe('0x0')
      expect('revertReason' in r).toBe(false)
    } finally {
      await plain.cleanup()
    }
  })
})
