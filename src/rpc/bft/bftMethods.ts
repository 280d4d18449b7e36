/**
 * The QBFT and IBFT groups (Besu's `qbft_*` and `ibft_*`, off unless enabled with --rpc-http-api):
 * validators of a block, this node's validator votes, proposer statistics over a range of blocks,
 * and (QBFT) the round timeout. Both groups share one implementation; a group answers only on a
 * chain of its own consensus, as Besu registers it only there (a chain migrating from IBFT 2.0 to
 * QBFT has both, each reading any block by that block's own protocol). Reads the chain and the validator.
 * Spec: Besu's JSON-RPC API reference, QBFT and IBFT 2.0 methods.
 */
import type { BlockHeader } from '@ethereumjs/block'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod, type RpcMethod } from '../../jsonrpc/defineMethod.ts'
import { InvalidParamsError, MethodNotFoundError } from '../../jsonrpc/errors.ts'
import { maxBigInt, minBigInt } from '../../primitives/bigintMath.ts'
import { bytesToHex, type Hex, toQuantity } from '../../primitives/hex.ts'
import type { BftValidator } from '../../producer/bftValidator.ts'
import type { RpcContext } from '../context.ts'

type Prefix = 'qbft' | 'ibft'
const KIND_OF: Record<Prefix, 'qbft' | 'ibft2'> = { qbft: 'qbft', ibft: 'ibft2' }
/** Blocks that qbft_getSignerMetrics reads when no start block is given. */
const DEFAULT_METRICS_RANGE = 100n

function validatorOf(ctx: RpcContext, prefix: Prefix): BftValidator {
  const v = ctx.validator
  if (!v?.kinds.includes(KIND_OF[prefix])) throw new MethodNotFoundError()
  return v
}

const validatorsOf = async (v: BftValidator, header: BlockHeader): Promise<Hex[]> =>
  (await v.validatorsOf(header)).map(bytesToHex)

function groupMethods(prefix: Prefix): RpcMethod<RpcContext>[] {
  const getValidatorsByBlockNumber = defineMethod({
    name: `${prefix}_getValidatorsByBlockNumber`,
    besu: { kinds: ['block'] },
    params: [p.blockNumberOrTag],
    handler: async (ctx: RpcContext, [ref]) => {
      const v = validatorOf(ctx, prefix)
      // Besu's QBFT answers `pending` with the next block's validators; its IBFT, like other tags, the head's.
      if (prefix === 'qbft' && ref === 'pending') return (await v.nextValidators()).map(bytesToHex)
      const block = await ctx.chain.resolve(ref)
      return block ? validatorsOf(v, block.header) : null
    },
  })
  const getValidatorsByBlockHash = defineMethod({
    name: `${prefix}_getValidatorsByBlockHash`,
    besu: { kinds: ['blockHash'] },
    params: [p.hash],
    handler: (ctx: RpcContext, [hash]) => {
      const v = validatorOf(ctx, prefix)
      const header = ctx.chain.getHeaderByHash(hash)
      return header ? validatorsOf(v, header) : null
    },
  })
  const proposeValidatorVote = defineMethod({
    name: `${prefix}_proposeValidatorVote`,
    besu: { kinds: ['address', 'proposal'] },
    params: [p.address, p.bool],
    handler: (ctx: RpcContext, [address, isAdd]) => {
      validatorOf(ctx, prefix).votes.set(bytesToHex(address), isAdd)
      return true
    },
  })
  const discardValidatorVote = defineMethod({
    name: `${prefix}_discardValidatorVote`,
    besu: { kinds: ['address'] },
    params: [p.address],
    handler: (ctx: RpcContext, [address]) => {
      validatorOf(ctx, prefix).votes.delete(bytesToHex(address))
      return true
    },
  })
  const getPendingVotes = defineMethod({
    name: `${prefix}_getPendingVotes`,
    besu: { kinds: [] },
    params: [],
    handler: (ctx: RpcContext) => Object.fromEntries(validatorOf(ctx, prefix).votes),
  })
  const getSignerMetrics = defineMethod({
    name: `${prefix}_getSignerMetrics`,
    besu: { kinds: ['blockNumber', 'blockNumber'] },
    params: [p.blockNumberOrTag.optional(), p.blockNumberOrTag.optional()],
    handler: (ctx: RpcContext, [from, to]) => {
      const v = validatorOf(ctx, prefix)
      return signerMetrics(
        ctx,
        { proposerOf: (h) => v.tracker.proposerOf(h), signersAfter: (h) => v.tracker.validatorsAfter(h) },
        from,
        to,
      )
    },
  })
  return [
    getValidatorsByBlockNumber,
    getValidatorsByBlockHash,
    proposeValidatorVote,
    discardValidatorVote,
    getPendingVotes,
    getSignerMetrics,
  ]
}

export type BlockNumberParam = bigint | 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'

function blockNumberOf(ctx: RpcContext, ref: BlockNumberParam): bigint {
  if (typeof ref === 'bigint') return ref
  if (ref === 'earliest') return 0n
  if (ref === 'latest' || ref === 'pending') return ctx.chain.head.header.number
  throw new InvalidParamsError('Invalid block number params')
}

/** How a consensus names a block's proposer and the signers after a block. */
export interface ProposerRules {
  proposerOf(header: BlockHeader): Uint8Array
  signersAfter(header: BlockHeader): Iterable<Uint8Array> | Promise<Iterable<Uint8Array>>
}

/**
 * Blocks proposed per validator from `from` (inclusive, default head − 100) to `to` (exclusive,
 * default and at most the head), with the validators after the last block listed even when they
 * proposed none (as 0 blocks, last proposed block 0x0: Besu's rules, range and all).
 */
export async function signerMetrics(
  ctx: RpcContext,
  rules: ProposerRules,
  from?: BlockNumberParam,
  to?: BlockNumberParam,
) {
  const head = ctx.chain.head.header.number
  const start = from === undefined ? maxBigInt(head - DEFAULT_METRICS_RANGE, 0n) : blockNumberOf(ctx, from)
  const end = to === undefined ? head : minBigInt(blockNumberOf(ctx, to), head)
  if (start >= end) throw new InvalidParamsError('Invalid block number params')
  const metrics = new Map<Hex, { address: Hex; proposedBlockCount: number; lastProposedBlockNumber: bigint }>()
  const entry = (address: Hex) => {
    const m = metrics.get(address) ?? { address, proposedBlockCount: 0, lastProposedBlockNumber: 0n }
    metrics.set(address, m)
    return m
  }
  for (let n = start; n < end; n++) {
    const block = await ctx.chain.getBlockByNumber(n)
    if (!block) continue
    const m = entry(bytesToHex(rules.proposerOf(block.header)))
    m.proposedBlockCount++
    m.lastProposedBlockNumber = n
    if (n === end - 1n) for (const a of await rules.signersAfter(block.header)) entry(bytesToHex(a))
  }
  return [...metrics.values()].map((m) => ({
    address: m.address,
    proposedBlockCount: toQuantity(m.proposedBlockCount),
    lastProposedBlockNumber: toQuantity(m.lastProposedBlockNumber),
  }))
}

/** The seconds a QBFT round lasts before a round change (round 0; later rounds double it). */
const getRequestTimeoutSeconds = defineMethod({
  name: 'qbft_getRequestTimeoutSeconds',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => validatorOf(ctx, 'qbft').requestTimeoutSeconds,
})

export const qbftMethods: RpcMethod<RpcContext>[] = [...groupMethods('qbft'), getRequestTimeoutSeconds]
export const ibftMethods: RpcMethod<RpcContext>[] = groupMethods('ibft')
