/** Dev chains sealed block by block for the tests of the chain's state (not part of the node). */
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { devAccounts } from '../chain/devAccounts.ts'
import { manualClock } from '../primitives/clock.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { DevSealer } from '../producer/devSealer.ts'
import { TxPool } from '../txpool/txPool.ts'
import type { NodeConfig } from './config.ts'
import { openChain, poolChainView } from './node.ts'

/**
 * Seals `count` blocks of `perBlock` transfers (one from each of the first dev accounts) on a fresh
 * file-backed dev chain; returns the chain, the recipient and a way to seal more. Shared by the tests of the chain's state.
 */
export async function sealTransfers(
  dataPath: string,
  count: number,
  perBlock = 1,
  storage: Partial<
    Pick<NodeConfig, 'dataStorageFormat' | 'bonsaiHistoricalBlockLimit' | 'isBonsaiArchive' | 'rpcCallWorkers'>
  > = {},
) {
  const opened = await openChain({ dataPath, ...storage })
  const { chain } = opened
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, {
    coinbase: new Uint8Array(20).fill(0xc0),
    clock: manualClock(1_700_000_000_000),
  })
  const keys = devAccounts()
    .slice(0, perBlock)
    .map((a) => hexToBytes(a.privateKey))
  const recipient = new Address(new Uint8Array(20).fill(0x42))
  const first = new Address(hexToBytes(devAccounts()[0].address))
  let nonce = 0n
  const sealMore = async (blocks: number, value = 1000n) => {
    // From the head's state: the head may have been moved back since.
    nonce = (await chain.stateAt(chain.head).getAccount(first))?.nonce ?? 0n
    for (let i = 0; i < blocks; i++, nonce++) {
      for (const key of keys) {
        const tx = createFeeMarket1559Tx(
          {
            chainId: chain.common.chainId(),
            nonce,
            to: recipient,
            value,
            gasLimit: 21_000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 1n,
          },
          { common: chain.common },
        ).sign(key)
        await pool.add(tx)
      }
      await sealer.sealBlock(false)
    }
  }
  await sealMore(count)
  return { ...opened, recipient, sealMore }
}
