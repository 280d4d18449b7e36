/**
 * Installed filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter) and their
 * accumulated changes. Filters that are not polled for `timeoutMs` are removed, as Besu does.
 */
import type { Chain } from '../../chain/chain.ts'
import type { TxPool } from '../../txpool/txPool.ts'

export class FilterManager {
  constructor(
    readonly chain: Chain,
    readonly pool: TxPool,
  ) {}

  stop(): void {}
}
