/**
 * An in-memory dev chain for log, filter and subscription tests: the tracing test chain with the
 * Ping emitter (./emitter.ts) deployed, and transactions to it sent from a second dev account.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import type { Chain } from '../../src/chain/chain.ts'
import { devAccounts } from '../../src/chain/devAccounts.ts'
import { bigintToPaddedBytes, hexToBytes } from '../../src/primitives/hex.ts'
import type { DevSealer } from '../../src/producer/devSealer.ts'
import type { TxPool } from '../../src/txpool/txPool.ts'
import { tracingChain } from '../tracing/tracingChain.ts'
import { EMITTER_RUNTIME } from './emitter.ts'

export interface EventChain {
  chain: Chain
  pool: TxPool
  sealer: DevSealer
  emitter: Uint8Array
  /** Adds a transaction calling the emitter with `value` to the pool (not sealed). */
  queuePing(value: bigint): Promise<string>
  /** Calls the emitter with each value, all in one new block. */
  ping(...values: bigint[]): Promise<void>
  close(): void
}

export async function eventChain(): Promise<EventChain> {
  const t = await tracingChain()
  const { chain, pool, sealer, clock } = t
  const emitter = hexToBytes(await t.deploy(EMITTER_RUNTIME))
  const { address, privateKey } = devAccounts()[1]
  const key = hexToBytes(privateKey)
  const queuePing = async (value: bigint) => {
    // From the head's state, so that sending still works after the head moved back.
    const account = await chain.stateAt(chain.head).getAccount(new Address(hexToBytes(address)))
    const tx = createFeeMarket1559Tx(
      {
        chainId: chain.common.chainId(),
        nonce: (account?.nonce ?? 0n) + BigInt(pool.size),
        to: emitter,
        data: bigintToPaddedBytes(value, 32),
        gasLimit: 200_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: chain.commonForNextBlock() },
    ).sign(key)
    return pool.add(tx)
  }
  const ping = async (...values: bigint[]) => {
    for (const v of values) await queuePing(v)
    clock.advance(12_000)
    await sealer.sealBlock(false)
  }
  return { chain, pool, sealer, emitter, queuePing, ping, close: t.close }
}
