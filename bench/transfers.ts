/** The one-transfer blocks of the state-storage benches: the first dev account pays 1 wei to one of 1,000 recipients. */
import type { Common } from '@ethereumjs/common'
import { createFeeMarket1559Tx, type FeeMarket1559Tx } from '@ethereumjs/tx'
import { Address, createContractAddress, hexToBytes, privateToAddress } from '@ethereumjs/util'
import { openChain, poolChainView } from '../src/node/node.ts'
import { manualClock } from '../src/primitives/clock.ts'
import { DevSealer } from '../src/producer/devSealer.ts'
import { TxPool } from '../src/txpool/txPool.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const RECIPIENTS = 1000

/** The `i`-th recipient (they repeat every 1,000, so the account state stops growing). */
export function recipient(i: number): Address {
  const to = new Uint8Array(20)
  to[0] = 0x42
  new DataView(to.buffer).setUint32(16, (i % RECIPIENTS) + 1)
  return new Address(to)
}

/** The transfer with nonce `i`, to `recipient(i)`. */
export function transfer(i: number, common: Common): FeeMarket1559Tx {
  return createFeeMarket1559Tx(
    { nonce: i, to: recipient(i), value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
    { common },
  ).sign(KEY)
}

/** The shared harness's token deployed by the first dev account with nonce 0, and its address. */
export function tokenDeploy(common: Common): { tx: FeeMarket1559Tx; token: Address } {
  const data = hexToBytes(`${TOKEN_INITCODE}${pad32((10n ** 30n).toString(16))}` as `0x${string}`)
  const tx = createFeeMarket1559Tx(
    { nonce: 0, value: 0n, data, gasLimit: 1_000_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
    { common },
  ).sign(KEY)
  return { tx, token: createContractAddress(new Address(privateToAddress(KEY)), 0n) }
}

/** A token transfer of 1 unit to `recipient(i)`, with nonce `i + 1` (after `tokenDeploy`). */
export function tokenTransfer(i: number, common: Common, token: Address): FeeMarket1559Tx {
  const data = hexToBytes(`0xa9059cbb${pad32(recipient(i).toString())}${pad32('1')}`)
  return createFeeMarket1559Tx(
    { nonce: i + 1, to: token, data, gasLimit: 100_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
    { common },
  ).sign(KEY)
}

/**
 * A dev chain on a data path that seals one transfer per block (`sealNext(i)` the `i`-th, 1 s
 * after the previous block) and resolves to the ms the sealing took.
 */
export async function transferChain(config: Parameters<typeof openChain>[0]) {
  const opened = await openChain(config)
  const { chain } = opened
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 1000, priceBumpPercent: 10 })
  const clock = manualClock(1_700_000_000_000)
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock })
  const common = chain.commonForNextBlock()
  const sealNext = async (i: number): Promise<number> => {
    await pool.add(transfer(i, common))
    clock.advance(1000)
    const t0 = performance.now()
    await sealer.sealBlock(false)
    return performance.now() - t0
  }
  return { ...opened, sealNext }
}
