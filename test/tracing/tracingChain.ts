/**
 * A small in-memory dev chain for tracer tests: dev accounts, a dev sealer on a manual clock, and
 * helpers that send a signed transaction and seal it into its own block.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { computeContractAddress } from '../../src/chain/addresses.ts'
import type { Chain } from '../../src/chain/chain.ts'
import { devAccounts } from '../../src/chain/devAccounts.ts'
import { devGenesis } from '../../src/chain/genesis.ts'
import { replayBlock } from '../../src/evm/tracers/blockReplayer.ts'
import type { TxTracer } from '../../src/evm/tracers/txTracer.ts'
import { openChain, poolChainView } from '../../src/node/node.ts'
import { manualClock } from '../../src/primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../../src/primitives/hex.ts'
import { DevSealer } from '../../src/producer/devSealer.ts'
import { TxPool } from '../../src/txpool/txPool.ts'

/** Stores 0x2a in slot 0, loads it back and returns it. */
export const STORE_RUNTIME = '602a60005560005460005260206000f3'
/** Reverts with empty data. */
export const REVERT_RUNTIME = '60006000fd'

/** Runtime that CALLs `target` with 4 zero bytes, keeps 32 bytes of output, logs them with topic 1. */
export function callerRuntime(target: string): string {
  return `6020600060046000600073${target.slice(2)}5af150600160206000a100`
}

/** Init code that deploys `runtime` (hex, no 0x). */
export function deployCode(runtime: string): Uint8Array {
  const len = (runtime.length / 2).toString(16).padStart(2, '0')
  return hexToBytes(`60${len}600c60003960${len}6000f3${runtime}`)
}

/** What a test sets on a transaction; the rest is the first dev account's defaults. */
export interface TxFields {
  to?: string
  data?: Uint8Array
  value?: bigint
  gasLimit?: bigint
}

export interface TracingChain {
  chain: Chain
  /** The pool, sealer and clock behind `send`, for tests that seal on their own. */
  pool: TxPool
  sealer: DevSealer
  clock: ReturnType<typeof manualClock>
  sender: string
  /** Sends a transaction from the first dev account and seals it; returns its hash. */
  send(tx: TxFields): Promise<Uint8Array>
  /** Sends several transactions from the first dev account and seals them in one block; returns their hashes. */
  sendBlock(txs: TxFields[]): Promise<Uint8Array[]>
  /** Deploys `runtime` and returns the contract address. */
  deploy(runtime: string): Promise<string>
  /** Replays the block of `hash` and returns what `tracer` made of that transaction. */
  trace<R>(hash: Uint8Array, tracer: TxTracer<R>): Promise<R>
  close(): void
}

/** Opens the chain on the dev genesis, with `alloc` (address to account) added to it when given. */
async function openTracingChain(alloc?: Record<string, { code: string }>): ReturnType<typeof openChain> {
  if (!alloc) return openChain({ dataPath: ':memory:' })
  const genesis = devGenesis()
  const dir = mkdtempSync(join(tmpdir(), 'tracing-chain-'))
  try {
    const genesisFile = join(dir, 'genesis.json')
    writeFileSync(genesisFile, JSON.stringify({ ...genesis, alloc: { ...genesis.alloc, ...alloc } }))
    return await openChain({ dataPath: ':memory:', genesisFile })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function tracingChain(alloc?: Record<string, { code: string }>): Promise<TracingChain> {
  const { chain, close } = await openTracingChain(alloc)
  const clock = manualClock(1_700_000_000_000)
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock })
  const account = devAccounts()[0]
  const key = hexToBytes(account.privateKey)
  let nonce = 0n
  const sign = ({ to, data, value, gasLimit }: TxFields) =>
    createFeeMarket1559Tx(
      {
        chainId: chain.common.chainId(),
        nonce: nonce++,
        to: to as `0x${string}` | undefined,
        data,
        value: value ?? 0n,
        gasLimit: gasLimit ?? 1_000_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: chain.commonForNextBlock() },
    ).sign(key)
  const sendBlock: TracingChain['sendBlock'] = async (fields) => {
    const txs = fields.map(sign)
    for (const tx of txs) await pool.add(tx)
    clock.advance(12_000)
    await sealer.sealBlock(false)
    return txs.map((tx) => tx.hash())
  }
  const send: TracingChain['send'] = async (fields) => (await sendBlock([fields]))[0]
  const deploy = async (runtime: string) => {
    const hash = await send({ data: deployCode(runtime) })
    if (!(await chain.findTransaction(hash))) throw new Error('deployment not mined')
    return bytesToHex(computeContractAddress(hexToBytes(account.address), nonce - 1n))
  }
  const trace = async <R>(hash: Uint8Array, tracer: TxTracer<R>) => {
    const found = await chain.findTransaction(hash)
    if (!found) throw new Error('transaction not found')
    const out = await replayBlock(chain, found.block, (_tx, i) => (i === found.index ? tracer : undefined), found.index)
    return out.get(found.index) as R
  }
  return { chain, pool, sealer, clock, sender: account.address, send, sendBlock, deploy, trace, close }
}
