/** Installed filters, polled by id. Spec: execution-apis src/eth/filter.yaml */
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import type { RpcContext } from '../context.ts'
import { filterParam } from './logFilterParam.ts'

const filterId = p.named('filter id', p.string)

/** Installs a log filter; its changes are the matching logs of each new canonical block. */
export const newFilter = defineMethod({
  name: 'eth_newFilter',
  besu: { kinds: ['filter'] },
  params: [filterParam],
  handler: ({ filters }: RpcContext, [f]) => filters.newLogFilter(f),
})

/** Installs a filter whose changes are the hashes of new canonical blocks. */
export const newBlockFilter = defineMethod({
  name: 'eth_newBlockFilter',
  besu: { kinds: [] },
  params: [],
  handler: ({ filters }: RpcContext) => filters.newBlockFilter(),
})

/** Installs a filter whose changes are the hashes of transactions entering the pool. */
export const newPendingTransactionFilter = defineMethod({
  name: 'eth_newPendingTransactionFilter',
  besu: { kinds: [] },
  params: [],
  handler: ({ filters }: RpcContext) => filters.newPendingTransactionFilter(),
})

/** What a filter collected since it was last polled. */
export const getFilterChanges = defineMethod({
  name: 'eth_getFilterChanges',
  besu: { kinds: ['filter'] },
  params: [filterId],
  handler: ({ filters }: RpcContext, [id]) => filters.changes(id),
})

/** Every log a log filter matches over its range. */
export const getFilterLogs = defineMethod({
  name: 'eth_getFilterLogs',
  besu: { kinds: ['filter'] },
  params: [filterId],
  handler: ({ filters }: RpcContext, [id]) => filters.filterLogs(id),
})

/** Removes a filter; false when there was none. */
export const uninstallFilter = defineMethod({
  name: 'eth_uninstallFilter',
  besu: { kinds: ['filter'] },
  params: [filterId],
  handler: ({ filters }: RpcContext, [id]) => filters.uninstall(id),
})

export const filterMethods = [
  newFilter,
  newBlockFilter,
  newPendingTransactionFilter,
  getFilterChanges,
  getFilterLogs,
  uninstallFilter,
]
