/**
 * Mining, time and snapshots of the dev chain: `evm_mine`, `hardhat_mine` / `anvil_mine`, automine
 * and interval mining, `evm_increaseTime`, `evm_setNextBlockTimestamp`, `anvil_setTime`, timestamp
 * intervals, `evm_snapshot` / `evm_revert` and `anvil_reset` (which can move a forked chain to another fork point). Shapes follow Hardhat's network
 * reference and Anvil's `EthRequest` (foundry crates/anvil/core/src/eth/mod.rs).
 */
import { codec, decoders, p } from '../../jsonrpc/codecs.ts'
import type { RpcMethod } from '../../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../../jsonrpc/errors.ts'
import { toQuantity } from '../../primitives/hex.ts'
import { MAX_BLOCK_TIMESTAMP } from '../../producer/blockTime.ts'
import { ForkMismatchError } from '../../state/forkSource.ts'
import type { RpcContext } from '../context.ts'
import { amount, type DevCall, devMethod } from './devMethod.ts'

/** Every spelling of every method below; `methodGroups` files them under EVM, HARDHAT and ANVIL. */
export const miningMethods: RpcMethod<RpcContext>[] = []

/** Most blocks one `hardhat_mine` seals: each is a real block, written to the database. */
const MAX_MINE_BLOCKS = 100_000n

/** `evm_mine`'s optional argument: a timestamp, or Anvil's `{timestamp, blocks}`. */
export const mineOptions = codec('options', (v): { timestamp?: bigint; blocks?: bigint } => {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>
    return {
      timestamp: o.timestamp == null ? undefined : amount('timestamp').decode(o.timestamp),
      blocks: o.blocks == null ? undefined : amount('blocks').decode(o.blocks),
    }
  }
  return { timestamp: amount('timestamp').decode(v) }
})

function checkTimestamp({ tools }: DevCall, timestamp: bigint): void {
  const parent = tools.chain.head.header.timestamp
  if (timestamp <= parent) {
    throw new InvalidParamsError(
      `Timestamp ${timestamp} is lower than or equal to previous block's timestamp ${parent}`,
    )
  }
  checkTimestampRange(timestamp)
}

/** Block timestamps are uint64: a block past that could not be encoded as any client reads it. */
function checkTimestampRange(timestamp: bigint): void {
  if (timestamp > MAX_BLOCK_TIMESTAMP) {
    throw new InvalidParamsError(
      `Invalid params: timestamp ${timestamp} is above the largest block timestamp ${MAX_BLOCK_TIMESTAMP} (2^64 - 1)`,
    )
  }
}

/**
 * Applies a change of the chain's time and answers its result; when the next block's timestamp
 * would then leave the uint64 range, the change is undone and refused, so that one call cannot
 * leave the chain unable to seal.
 */
function changeTime<T>({ tools }: DevCall, change: () => T): T {
  const saved = tools.sealer.time.save()
  const out = change()
  try {
    checkTimestampRange(tools.sealer.time.next(tools.chain.head.header.timestamp))
  } catch (e) {
    tools.sealer.time.restore(saved)
    throw e
  }
  return out
}

export async function mine(call: DevCall, blocks: bigint, intervalSec: bigint, timestamp?: bigint): Promise<void> {
  if (blocks > MAX_MINE_BLOCKS)
    throw new InvalidParamsError(`Invalid params: at most ${MAX_MINE_BLOCKS} blocks at once`)
  if (timestamp !== undefined) checkTimestamp(call, timestamp)
  const { time } = call.tools.sealer
  const first = timestamp ?? time.next(call.tools.chain.head.header.timestamp)
  // The first block takes the chain's time (or `timestamp`), each later one `intervalSec` more.
  if (blocks > 0n) checkTimestampRange(first + (blocks - 1n) * intervalSec)
  if (timestamp !== undefined) time.setNext(timestamp)
  await call.tools.sealer.mine(blocks, intervalSec)
}

devMethod(miningMethods, { evm: 'evm_mine' }, [mineOptions.optional()], async (call, [opts]) => {
  await mine(call, opts?.blocks ?? 1n, 1n, opts?.timestamp)
  return '0x0'
})

devMethod(
  miningMethods,
  { hardhat: 'hardhat_mine', anvil: 'anvil_mine' },
  [amount('blocks').optional(), amount('interval').optional()],
  async (call, [blocks, interval]) => {
    if (interval === 0n) throw new InvalidParamsError('Invalid params: the interval must be at least 1 second')
    await mine(call, blocks ?? 1n, interval ?? 1n)
  },
)

devMethod(miningMethods, { evm: 'evm_setAutomine', anvil: 'anvil_setAutomine' }, [p.bool], ({ tools }, [isOn]) => {
  tools.sealer.setAutomine(isOn)
})

devMethod(
  miningMethods,
  { hardhat: 'hardhat_getAutomine', anvil: 'anvil_getAutomine' },
  [],
  ({ tools }) => tools.sealer.isAutomine,
)

/** Seconds, as Anvil takes it (Hardhat's `evm_setIntervalMining` takes milliseconds: see the README). */
devMethod(
  miningMethods,
  { evm: 'evm_setIntervalMining', anvil: 'anvil_setIntervalMining' },
  [amount('seconds')],
  ({ tools }, [seconds]) => {
    tools.sealer.setIntervalMining(Number(seconds) * 1000)
  },
)

/** The interval mining period in seconds, or null when off. */
devMethod(miningMethods, { anvil: 'anvil_getIntervalMining' }, [], ({ tools }) => {
  const ms = tools.sealer.settings().intervalMs
  return ms ? Math.round(ms / 1000) : null
})

devMethod(miningMethods, { anvil: 'anvil_setBlockTimestampInterval' }, [amount('seconds')], (call, [seconds]) => {
  changeTime(call, () => call.tools.sealer.time.setInterval(seconds))
})

devMethod(miningMethods, { anvil: 'anvil_removeBlockTimestampInterval' }, [], ({ tools }) =>
  tools.sealer.time.setInterval(undefined),
)

devMethod(
  miningMethods,
  { evm: 'evm_increaseTime', anvil: 'anvil_increaseTime' },
  [amount('seconds')],
  (call, [seconds]) => Number(changeTime(call, () => call.tools.sealer.time.increase(seconds))),
)

devMethod(
  miningMethods,
  { evm: 'evm_setNextBlockTimestamp', anvil: 'anvil_setNextBlockTimestamp' },
  [amount('timestamp')],
  (call, [timestamp]) => {
    checkTimestamp(call, timestamp)
    call.tools.sealer.time.setNext(timestamp)
  },
)

devMethod(miningMethods, { evm: 'evm_setTime', anvil: 'anvil_setTime' }, [amount('timestamp')], (call, [timestamp]) =>
  Number(changeTime(call, () => call.tools.sealer.time.setTime(timestamp))),
)

devMethod(miningMethods, { evm: 'evm_snapshot', anvil: 'anvil_snapshot' }, [], async ({ tools }) =>
  toQuantity(await tools.snapshot()),
)

devMethod(miningMethods, { evm: 'evm_revert', anvil: 'anvil_revert' }, [amount('id')], ({ tools }, [id]) =>
  tools.revert(id),
)

interface Forking {
  jsonRpcUrl?: string
  blockNumber?: bigint
}

const resetOptions = codec('options', (v): { forking?: Forking } => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return decoders.fail('expected an object')
  const forking = (v as { forking?: Record<string, unknown> }).forking
  if (forking == null) return {}
  if (typeof forking !== 'object' || Array.isArray(forking)) return decoders.fail('forking: expected an object')
  const { jsonRpcUrl, blockNumber } = forking
  if (jsonRpcUrl != null && typeof jsonRpcUrl !== 'string') return decoders.fail('forking.jsonRpcUrl: expected a URL')
  return {
    forking: {
      jsonRpcUrl: jsonRpcUrl ?? undefined,
      blockNumber: blockNumber == null ? undefined : amount('blockNumber').decode(blockNumber),
    },
  }
})

/**
 * `anvil_reset` / `hardhat_reset`. Without `forking`: a forked chain goes back to its fork block, any
 * other to the chain as the node started. With `forking` naming this node's own remote (or no URL)
 * and its fork block (or no block): back to the fork block, without asking the remote. Another URL
 * or block: the chain moves onto that fork point (another remote's latest block when no block is
 * named), which must be of the same chain id; the blocks since the old fork point leave the canonical
 * chain and the new fork point is recorded in the data path.
 */
async function reset({ tools, ctx }: DevCall, forking: Forking | undefined): Promise<void> {
  const fork = ctx.settings.fork
  if (!forking) return fork ? tools.resetToGenesis() : tools.reset()
  const { refork } = ctx
  if (!fork || !refork)
    throw new InvalidParamsError(
      'invalid argument 0 (options): forking: this node is not forked; start it with --fork-url',
    )
  const url = forking.jsonRpcUrl ?? fork.url
  const block = forking.blockNumber
  if (url === fork.url && (block === undefined || block === fork.blockNumber)) return tools.resetToGenesis()
  try {
    await tools.restartChain(async () => {
      fork.blockNumber = await refork(url, block)
      fork.url = url
    })
  } catch (e) {
    if (e instanceof ForkMismatchError)
      throw new InvalidParamsError(`invalid argument 0 (options): forking: ${e.message}`)
    throw e
  }
}

devMethod(
  miningMethods,
  { hardhat: 'hardhat_reset', anvil: 'anvil_reset' },
  [resetOptions.optional()],
  (call, [options]) => reset(call, options?.forking),
)
