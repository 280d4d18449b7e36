/**
 * The TESTING group: testing_buildBlockV1 builds a block on any stored parent from given
 * transactions (or the pool's) and returns it as an Engine API payload, without storing it or
 * moving the head. Spec: execution-apis src/testing/testing_buildBlockV1.yaml
 */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { buildBlock } from '@ethereumjs/vm'
import { createVm } from '../../evm/vmFactory.ts'
import { codec, decoders, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError, RpcError } from '../../jsonrpc/errors.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import { openState } from '../../state/worldState.ts'
import type { RpcContext } from '../context.ts'
import { decodeRawTransaction } from '../eth/txMethods.ts'
import { blockToPayloadJson } from '../payloadJson.ts'

interface Withdrawal {
  index: bigint
  validatorIndex: bigint
  address: Uint8Array
  amount: bigint
}

interface Attributes {
  timestamp: bigint
  prevRandao: Uint8Array
  feeRecipient: Uint8Array
  withdrawals?: Withdrawal[]
  parentBeaconBlockRoot?: Uint8Array
}

/** PayloadAttributesV3, decoded here: the rpc layer does not reach into the engine layer's codecs. */
function decodeAttributes(v: unknown): Attributes {
  const { quantity, fixed, fail } = decoders
  const o = p.object.decode(v)
  const w = o.withdrawals ?? undefined
  if (w !== undefined && !Array.isArray(w)) fail('withdrawals: expected an array')
  return {
    timestamp: quantity(o.timestamp),
    prevRandao: fixed(32, 'prevRandao')(o.prevRandao),
    feeRecipient: fixed(20, 'suggestedFeeRecipient')(o.suggestedFeeRecipient),
    withdrawals: (w as unknown[] | undefined)?.map((item) => {
      const x =
        typeof item === 'object' && item !== null
          ? (item as Record<string, unknown>)
          : fail('withdrawals: expected objects')
      return {
        index: quantity(x.index),
        validatorIndex: quantity(x.validatorIndex),
        address: fixed(20, 'address')(x.address),
        amount: quantity(x.amount),
      }
    }),
    parentBeaconBlockRoot:
      o.parentBeaconBlockRoot == null ? undefined : fixed(32, 'parentBeaconBlockRoot')(o.parentBeaconBlockRoot),
  }
}

/** The gas limit a built block moves toward, by at most parent/1024 per block (geth's default target). */
const TARGET_GAS_LIMIT = 60_000_000n
const GAS_LIMIT_BOUND_DIVISOR = 1024n

/** geth's CalcGasLimit: one step from the parent's limit toward the target. */
export function nextGasLimit(parentGasLimit: bigint, target = TARGET_GAS_LIMIT): bigint {
  const delta = parentGasLimit / GAS_LIMIT_BOUND_DIVISOR - 1n
  if (parentGasLimit < target) return parentGasLimit + delta < target ? parentGasLimit + delta : target
  return parentGasLimit - delta > target ? parentGasLimit - delta : target
}

type Builder = Awaited<ReturnType<typeof buildBlock>>

async function startBuilder(ctx: RpcContext, parent: Block, a: Attributes, extraData: Uint8Array): Promise<Builder> {
  const state = openState(ctx.chain.trieDb, ctx.chain.common, parent.header.stateRoot, true)
  const vm = await createVm(ctx.chain.common, state, ctx.chain)
  vm.common.setHardforkBy({ blockNumber: parent.header.number + 1n, timestamp: a.timestamp })
  return buildBlock(vm, {
    parentBlock: parent,
    headerData: {
      timestamp: a.timestamp,
      coinbase: a.feeRecipient,
      gasLimit: nextGasLimit(parent.header.gasLimit),
      mixHash: a.prevRandao,
      difficulty: 0n,
      baseFeePerGas: ctx.chain.nextBaseFee(parent.header),
      extraData,
      parentBeaconBlockRoot: a.parentBeaconBlockRoot,
    },
    withdrawals: a.withdrawals,
    blockOpts: { putBlockIntoBlockchain: false, setHardfork: true },
  })
}

/** Adds the given transactions, failing on the first that cannot be applied (as geth does). */
async function addGiven(builder: Builder, txs: TypedTransaction[]): Promise<void> {
  for (const tx of txs) {
    try {
      await builder.addTransaction(tx, { skipHardForkValidation: true })
    } catch (e) {
      throw new RpcError(-32000, `could not apply transaction ${bytesToHex(tx.hash())}: ${(e as Error).message}`)
    }
  }
}

/** Adds what fits of the pool's executable transactions; the rest are left out, not dropped. */
async function addFromPool(ctx: RpcContext, builder: Builder, parent: Block): Promise<TypedTransaction[]> {
  const added: TypedTransaction[] = []
  for (const t of ctx.pool.executable(ctx.chain.nextBaseFee(parent.header))) {
    try {
      await builder.addTransaction(t.tx, { skipHardForkValidation: true })
      added.push(t.tx)
    } catch {
      // Not applicable on this parent (nonce, funds, gas): left out of this block.
    }
  }
  return added
}

function blobsBundle(txs: TypedTransaction[]) {
  const out = { commitments: [] as string[], proofs: [] as string[], blobs: [] as string[] }
  for (const tx of txs) {
    const b = tx as TypedTransaction & { blobs?: string[]; kzgCommitments?: string[]; kzgProofs?: string[] }
    out.commitments.push(...(b.kzgCommitments ?? []))
    out.proofs.push(...(b.kzgProofs ?? []))
    out.blobs.push(...(b.blobs ?? []))
  }
  return out
}

/**
 * Builds a block on `parentHash` from `transactions` (the pool's when null) and returns it as a
 * getPayload-style envelope. Spec: execution-apis src/testing/testing_buildBlockV1.yaml
 */
export const buildBlockV1 = defineMethod({
  name: 'testing_buildBlockV1',
  params: [
    p.named('parentHash', p.hash),
    codec('payloadAttributes', decodeAttributes),
    p.array(p.data, 'transactions').optional(),
    p.named('extraData', p.data).optional(),
  ],
  handler: async (ctx: RpcContext, [parentHash, attrs, rawTxs, extraData]) => {
    const parent = await ctx.chain.getBlockByHash(parentHash)
    if (!parent) throw besuError('blockNotFound', `Block not found: unknown parent ${bytesToHex(parentHash)}`)
    const given = rawTxs ? await Promise.all(rawTxs.map((raw) => decodeRawTransaction(ctx, raw))) : undefined
    const builder = await startBuilder(ctx, parent, attrs, extraData ?? new Uint8Array(0))
    let included: TypedTransaction[]
    if (given) {
      await addGiven(builder, given)
      included = given
    } else {
      included = await addFromPool(ctx, builder, parent)
    }
    const { block, requests } = await builder.build()
    return {
      executionPayload: blockToPayloadJson(block),
      blockValue: toQuantity(builder.minerValue),
      blobsBundle: blobsBundle(included.filter((tx) => tx.type === 3)),
      executionRequests: (requests ?? []).filter((r) => r.bytes.length > 1).map((r) => bytesToHex(r.bytes)),
      shouldOverrideBuilder: false,
    }
  },
})

export const testingMethods = [buildBlockV1]
