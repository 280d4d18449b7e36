/**
 * Anvil's head moves and detailed mining: `anvil_rollback(depth)`, `anvil_reorg(depth, [[tx,
 * index], …])` and `evm_mine_detailed` / `anvil_mine_detailed`. Each moves the head on the chain's
 * head-rollback primitive (`chain/headReset.ts`): blocks taken off leave the canonical chain but
 * stay stored, as after `evm_revert`. Shapes follow Anvil's `EthRequest` (foundry
 * crates/anvil/core/src/eth/mod.rs).
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { replayBlock } from '../../evm/tracers/blockReplayer.ts'
import { createReplayTracer } from '../../evm/tracers/replayTracer.ts'
import { codec, decoders } from '../../jsonrpc/codecs.ts'
import type { RpcMethod } from '../../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../../jsonrpc/errors.ts'
import { hexToBytes, isHexData } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { transactionFromRequest } from '../eth/sendTransactionMethod.ts'
import { decodeRawTransaction, submitTransaction } from '../eth/txMethods.ts'
import { formatBlock } from '../format.ts'
import { amount, type DevCall, devMethod } from './devMethod.ts'
import { mine, mineOptions } from './miningMethods.ts'

/** Every spelling of every method below; `methodGroups` files them under EVM and ANVIL. */
export const reorgMethods: RpcMethod<RpcContext>[] = []

/** Refuses a depth the chain does not have, with Anvil's message. */
function checkDepth({ tools }: DevCall, what: string, depth: bigint): void {
  const height = tools.chain.head.header.number
  if (depth > height)
    throw new InvalidParamsError(
      `${what} depth must not exceed current chain height: current height ${height}, depth ${depth}`,
    )
}

devMethod(reorgMethods, { anvil: 'anvil_rollback' }, [amount('depth').optional()], async (call, [depth]) => {
  const d = depth ?? 1n
  checkDepth(call, 'Rollback', d)
  await call.tools.rollback(d)
})

/** A transaction of `anvil_reorg`: signed bytes, or a request as `eth_sendTransaction` takes it. */
type ReorgTx = { raw: Uint8Array } | { request: Record<string, unknown> }

const reorgPairs = codec('transactions', (v): [ReorgTx, number][] => {
  if (!Array.isArray(v)) return decoders.fail('expected an array of [transaction, block index] pairs')
  return v.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) return decoders.fail(`pair ${i}: expected [transaction, index]`)
    const [tx, index] = pair
    const at = Number(amount('index').decode(index))
    if (isHexData(tx)) return [{ raw: hexToBytes(tx) }, at]
    if (typeof tx === 'object' && tx !== null && !Array.isArray(tx))
      return [{ request: tx as Record<string, unknown> }, at]
    return decoders.fail(`pair ${i}: expected signed transaction bytes or a transaction request`)
  })
})

/**
 * Replaces the last `depth` blocks with `depth` new ones holding the given transactions (each at
 * its block index, 0 the first new block); requests are filled and signed as `eth_sendTransaction`
 * does (an unlocked dev account or an impersonated one), against the new branch.
 */
devMethod(reorgMethods, { anvil: 'anvil_reorg' }, [amount('depth'), reorgPairs], async (call, [depth, pairs]) => {
  checkDepth(call, 'Reorg', depth)
  if (depth === 0n) throw new InvalidParamsError('Reorg depth must be greater than 0')
  const decoded: [ReorgTx | TypedTransaction, number][] = []
  for (const [tx, index] of pairs) {
    if (index >= Number(depth))
      throw new InvalidParamsError(`Block index ${index} of a reorg transaction is out of range (depth ${depth})`)
    decoded.push(['raw' in tx ? await decodeRawTransaction(call.ctx, tx.raw) : tx, index])
  }
  await call.tools.reorg(depth, async (i) => {
    for (const [tx, index] of decoded) {
      if (index !== i) continue
      const signed = 'request' in tx ? await transactionFromRequest(call.ctx, tx.request) : (tx as TypedTransaction)
      await submitTransaction(call.ctx, signed)
    }
  })
})

/**
 * Mines as `evm_mine` does and answers the mined blocks with their transactions in full, each with
 * its `output` (the return data, from a replay), as Anvil's `evm_mine_detailed` does.
 */
devMethod(
  reorgMethods,
  { evm: 'evm_mine_detailed', anvil: 'anvil_mine_detailed' },
  [mineOptions.optional()],
  async (call, [opts]) => {
    const { tools } = call
    const from = tools.chain.head.header.number + 1n
    await mine(call, opts?.blocks ?? 1n, 1n, opts?.timestamp)
    const out = []
    for (let n = from; n <= tools.chain.head.header.number; n++) {
      const block = (await tools.chain.getBlockByNumber(n))!
      const json = formatBlock(block, true, tools.chain.getSenders(block)) as {
        transactions: Record<string, unknown>[]
      }
      if (block.transactions.length > 0) {
        const replays = await replayBlock(tools.chain, block, () => createReplayTracer([], 'call'))
        json.transactions.forEach((t, i) => {
          t.output = replays.get(i)?.output ?? '0x'
        })
      }
      out.push(json)
    }
    return out
  },
)
