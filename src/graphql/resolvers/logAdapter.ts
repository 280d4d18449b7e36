/** Log: one event log with its block and position, and the filters GraphQL applies to logs. */
import type { Block } from '@ethereumjs/block'
import { equalBytes } from '../../primitives/hex.ts'
import type { GraphqlContext } from '../context.ts'
import { accountAtArg } from './accountAdapter.ts'
import { TransactionAdapter } from './transactionAdapter.ts'

export interface LogEntry {
  block: Block
  txIndex: number
  /** Position of the log in its block. */
  logIndex: number
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
}

/** Addresses (any of) and per-position topics (any of; empty matches anything), as both filters give them. */
export interface LogFilter {
  addresses?: Uint8Array[] | null
  topics?: Uint8Array[][] | null
}

export class LogAdapter {
  private readonly log: LogEntry

  constructor(log: LogEntry) {
    this.log = log
  }

  index(): number {
    return this.log.logIndex
  }

  account(args: { block?: bigint | null }, ctx: GraphqlContext) {
    return accountAtArg(ctx, args.block, this.log.block, this.log.address)
  }

  topics(): Uint8Array[] {
    return this.log.topics
  }

  data(): Uint8Array {
    return this.log.data
  }

  transaction(_args: unknown, ctx: GraphqlContext): TransactionAdapter {
    return TransactionAdapter.inBlock(ctx, this.log.block, this.log.txIndex)
  }
}

/** Every log of a block, from its receipts, in order. */
export function blockLogs(ctx: GraphqlContext, block: Block): LogEntry[] {
  const out: LogEntry[] = []
  ctx.chain.getReceipts(block).forEach((receipt, txIndex) => {
    for (const [address, topics, data] of receipt.logs) {
      out.push({ block, txIndex, logIndex: out.length, address, topics, data })
    }
  })
  return out
}

export function matchesFilter(log: Pick<LogEntry, 'address' | 'topics'>, filter: LogFilter): boolean {
  const addresses = filter.addresses ?? []
  if (addresses.length > 0 && !addresses.some((a) => equalBytes(a, log.address))) return false
  return (filter.topics ?? []).every((alternatives, i) => {
    if (alternatives.length === 0) return true
    const topic = log.topics[i]
    return topic !== undefined && alternatives.some((t) => equalBytes(t, topic))
  })
}
