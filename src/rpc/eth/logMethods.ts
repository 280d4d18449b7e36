/** Log queries. Spec: execution-apis src/eth/filter.yaml (eth_getLogs) */
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import type { RpcContext } from '../context.ts'
import { filterParam } from './logFilterParam.ts'

/** Logs matching a filter over a canonical block range, or in one block (EIP-234). */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  params: [filterParam],
  handler: async ({ filters }: RpcContext, [f]) => {
    if (f.blockHash) return filters.logs.inBlock(f.blockHash, f.criteria)
    const { from, to } = filters.logs.range(f.fromBlock, f.toBlock)
    return filters.logs.inRange(from, to, f.criteria)
  },
})

export const logMethods = [getLogs]
