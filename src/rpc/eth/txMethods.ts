/** Sending and looking up transactions. Spec: execution-apis src/eth/transaction.yaml, submit.yaml */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { decodeBlobTxOffThread } from '../../chain/blobTxDecode.ts'
import { hasChainId } from '../../chain/genesis.ts'
import { keepSenderAndEncoding } from '../../evm/txMemo.ts'
import { ParamError, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { type BesuErrorKind, besuError, RpcError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { TxPoolError } from '../../txpool/txPoolError.ts'
import type { RpcContext } from '../context.ts'
import { askAboutRemoteTransaction, remoteTransaction, remoteTransactionAt } from '../forkHistory.ts'
import { formatTransaction } from '../format.ts'
import { blockReceipt } from './blockMethods.ts'

/** Decodes a signed transaction as sent to eth_sendRawTransaction (blob txs in network form). */
export async function decodeRawTransaction(ctx: RpcContext, raw: Uint8Array): Promise<TypedTransaction> {
  const common = ctx.chain.commonForNextBlock()
  try {
    if (raw[0] === 3) return checkSignature(await decodeBlobTransaction(raw, common))
    // Frozen here rather than by the library, once its sender and encoding are kept (see txMemo.ts).
    const tx = createTxFromRLP(raw, { common, freeze: false })
    keepSenderAndEncoding(tx)
    Object.freeze(tx)
    return checkSignature(tx)
  } catch (e) {
    if (e instanceof RpcError) throw e
    const message = (e as Error).message
    // The library checks these while decoding; Besu reports them as validation failures. Besu's
    // pool compares the gas limit with the head's block gas limit before the EIP-7825 cap.
    // The library's message embeds a function's source, lines and all, which differs per runtime.
    if (message.includes('not matching the derived chain ID'))
      throw besuError(hasChainId(common) ? 'wrongChainId' : 'replayProtectionNotSupported')
    if (message.includes('EIP-7825')) {
      const gasLimit = /gas limit (\d+)/.exec(message)?.[1]
      if (gasLimit !== undefined && BigInt(gasLimit) > ctx.chain.head.header.gasLimit)
        throw besuError('exceedsBlockGasLimit')
      throw besuError('exceedsTransactionGasLimit', `Transaction gas limit cap exceeded: ${message}`)
    }
    throw new ParamError(0, `could not decode transaction: ${message}`)
  }
}

/**
 * A blob transaction in network form. Its blobs are checked against their proofs in the KZG worker
 * (seconds for six blobs, off the event loop); malformed bytes fail before that.
 */
async function decodeBlobTransaction(raw: Uint8Array, common: Common): Promise<TypedTransaction> {
  const tx = await decodeBlobTxOffThread(common, raw)
  // Cell proofs (wrapper version 1, EIP-7594) belong to Osaka; before it Besu refuses them.
  if ((tx as { networkWrapperVersion?: number }).networkWrapperVersion === 1 && !common.isActivatedEIP(7594))
    throw besuError('invalidBlobs')
  return tx
}

/** secp256k1's group order: a signature's r and s lie in [1, n). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** Refuses, as Besu's decoder does, a transaction without a signature or with r or s out of range. */
function checkSignature(tx: TypedTransaction): TypedTransaction {
  const { r, s } = tx
  if (r === undefined || s === undefined || !tx.isSigned()) throw new Error('transaction is not signed')
  if (r < 1n || r >= SECP256K1_N) throw new Error(`invalid signature: r must be in [1, n), got ${r}`)
  if (s < 1n || s >= SECP256K1_N) throw new Error(`invalid signature: s must be in [1, n), got ${s}`)
  return tx
}

/**
 * Adds a transaction to the pool, turning pool refusals into Besu's errors. Besu answers with the
 * fixed message of each reason ("Nonce too low"), not the pool's detailed one, and so do we: clients
 * match on those strings.
 */
export async function submitTransaction(ctx: RpcContext, tx: TypedTransaction): Promise<string> {
  try {
    return await ctx.pool.add(tx)
  } catch (e) {
    if (!(e instanceof TxPoolError)) throw e
    const kind: BesuErrorKind = e.kind
    throw besuError(kind)
  }
}

export const sendRawTransaction = defineMethod({
  name: 'eth_sendRawTransaction',
  besu: { kinds: ['transaction'], count: 1 },
  params: [p.named('transaction', p.data)],
  handler: async (ctx: RpcContext, [raw]) => submitTransaction(ctx, await decodeRawTransaction(ctx, raw)),
})

function txAt(ctx: RpcContext, block: Block | undefined, index: bigint) {
  if (!block || index >= BigInt(block.transactions.length)) return null
  const i = Number(index)
  return formatTransaction(block.transactions[i], ctx.chain.getSenders(block)[i], { block, index: i })
}

export const getTransactionByHash = defineMethod({
  name: 'eth_getTransactionByHash',
  besu: { kinds: ['transactionHash'] },
  params: [p.hash],
  handler: async (ctx: RpcContext, [hash]) => {
    const found = await ctx.chain.findTransaction(hash)
    if (found) return txAt(ctx, found.block, BigInt(found.index))
    const pooled = ctx.pool.get(bytesToHex(hash))
    if (pooled) return formatTransaction(pooled.tx, pooled.sender)
    return (await remoteTransaction(ctx, hash)) ?? null
  },
})

export const getTransactionByBlockHashAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockHashAndIndex',
  besu: { kinds: ['blockHash', 'transactionIndex'] },
  params: [p.hash, p.index],
  handler: async (ctx: RpcContext, [hash, index]) => {
    const block = await ctx.chain.getBlockByHash(hash)
    if (ctx.forkHistory && (!block || block.header.number <= ctx.forkHistory.number))
      return remoteTransactionAt(ctx, hash, index)
    return txAt(ctx, block, index)
  },
})

export const getTransactionByBlockNumberAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockNumberAndIndex',
  besu: { kinds: ['block', 'transactionIndex'] },
  params: [p.blockNumberOrTag, p.index],
  handler: async (ctx: RpcContext, [ref, index]) => {
    if (ctx.forkHistory && typeof ref === 'bigint' && ref <= ctx.forkHistory.number)
      return remoteTransactionAt(ctx, ref, index)
    return txAt(ctx, await ctx.chain.resolve(ref), index)
  },
})

export const getTransactionReceipt = defineMethod({
  name: 'eth_getTransactionReceipt',
  besu: { kinds: ['transactionHash'] },
  params: [p.hash],
  handler: async (ctx: RpcContext, [hash]) => {
    const found = await ctx.chain.findTransaction(hash)
    if (found) return blockReceipt(ctx, found.block, found.index)
    return (await askAboutRemoteTransaction(ctx, hash, 'eth_getTransactionReceipt')) ?? null
  },
})

/** The signed bytes of a mined or pooled transaction (geth's and Anvil's); `null` when unknown. */
export const getRawTransactionByHash = defineMethod({
  name: 'eth_getRawTransactionByHash',
  besu: { kinds: ['transactionHash'] },
  params: [p.hash],
  handler: async (ctx: RpcContext, [hash]) => {
    const found = await ctx.chain.findTransaction(hash)
    const tx = found ? found.block.transactions[found.index] : ctx.pool.get(bytesToHex(hash))?.tx
    return tx ? bytesToHex(tx.serialize()) : null
  },
})

export const txMethods = [
  sendRawTransaction,
  getTransactionByHash,
  getRawTransactionByHash,
  getTransactionByBlockHashAndIndex,
  getTransactionByBlockNumberAndIndex,
  getTransactionReceipt,
]
