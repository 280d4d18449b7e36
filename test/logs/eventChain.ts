/**
 * An in-memory dev chain for log, filter and subscription tests: a pool, a dev sealer on a manual
 * clock, and the Ping emitter (./emitter.ts) deployed in block 1.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { computeContractAddress } from '../../src/chain/addresses.ts'
import type { Chain } from '../../src/chain/chain.ts'
import { devAccounts } from '../../src/chain/devAccounts.ts'
import { openChain } from '../../src/node/node.ts'
import { manualClock } from '../../src/primitives/clock.ts'
import { bigintToPaddedBytes, hexToBytes } from '../../src/primitives/hex.ts'
import { DevSealer } from '../../src/producer/devSealer.ts'
import { TxPool } from '../../src/txpool/txPool.ts'
import { deployCodeHex, EMITTER_RUNTIME } from './emitter.ts'

export interface EventChain {
  chain: Chain
  pool: TxPool
  sealer: DevSealer
  emitter: Uint8Array
  /** Adds a transaction calling the emitter with `value` to the pool (not sealed). */
  queuePing(value: bigint): Promise<string>
  /** Calls the emitter with each value, all in one new block; returns the block. */
  ping(...values: bigint[]): Promise<void>
  close(): void
}

export async function eventChain(): Promise<EventChain> {
  const { chain, close } = await openChain({ dataPath: ':memory:' })
  const clock = manualClock(1_700_000_000_000)
  const pool = new TxPool(
    {
      chainId: chain.common.chainId(),
      headGasLimit: () => chain.head.header.gasLimit,
      headBaseFee: () => chain.head.header.baseFeePerGas ?? 0n,
      account: async (address) => {
        const a = await chain.stateAt(chain.head).getAccount(new Address(address))
        return { nonce: a?.nonce ?? 0n, balance: a?.balance ?? 0n }
      },
    },
    { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 },
  )
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock })
  const { address, privateKey } = devAccounts()[0]
  const key = hexToBytes(privateKey)
  const sender = hexToBytes(address)
  const queue = async (to: Uint8Array | undefined, data: Uint8Array) => {
    // From the head's state, so that sending still works after the head moved back.
    const account = await chain.stateAt(chain.head).getAccount(new Address(sender))
    const nonce = (account?.nonce ?? 0n) + BigInt(pool.size)
    const tx = createFeeMarket1559Tx(
      {
        chainId: chain.common.chainId(),
        nonce,
        to,
        data,
        gasLimit: 200_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: chain.commonForNextBlock() },
    ).sign(key)
    return pool.add(tx)
  }
  const seal = async () => {
    clock.advance(12_000)
    await sealer.sealBlock(false)
  }
  await queue(undefined, hexToBytes(deployCodeHex(EMITTER_RUNTIME)))
  await seal()
  const emitter = computeContractAddress(sender, 0n)
  const queuePing = (value: bigint) => queue(emitter, bigintToPaddedBytes(value, 32))
  const ping = async (...values: bigint[]) => {
    for (const v of values) await queuePing(v)
    await seal()
  }
  return { chain, pool, sealer, emitter, queuePing, ping, close }
}
