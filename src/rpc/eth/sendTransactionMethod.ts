/**
 * eth_sendTransaction for the dev accounts, when they were unlocked explicitly: fills nonce (pending),
 * fees (the gas price oracle and the next base fee) and gas (an estimate), signs with the account's
 * key and submits to the pool. Refused as Besu refuses it otherwise.
 */
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { Address, MAX_UINT64 } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { hasLondonBaseFee } from '../../chain/baseFee.ts'
import { buildCallTransaction, type CallRequest, callTxType } from '../../evm/callTransaction.ts'
import { estimateGas } from '../../evm/gasEstimator.ts'
import { CodecError, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError, InvalidParamsError, RpcError } from '../../jsonrpc/errors.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { failedCallError, mapCallErrors } from './callErrors.ts'
import { decodeCallRequest } from './callRequest.ts'
import { suggestGasPrice, suggestPriorityFee } from './gasOracle.ts'
import { submitTransaction } from './txMethods.ts'

/** The key of `from` (lower-case hex) when it is a dev account and the dev accounts are unlocked. */
export function unlockedKey(ctx: RpcContext, from: string | undefined): Uint8Array | undefined {
  if (!ctx.settings.isDevAccountsUnlocked || from === undefined) return undefined
  const account = ctx.settings.devAccounts.find((a) => a.address.toLowerCase() === from)
  return account ? hexToBytes(account.privateKey) : undefined
}

export function decodeRequest(v: unknown): CallRequest {
  try {
    return decodeCallRequest(v)
  } catch (e) {
    if (e instanceof CodecError) throw new InvalidParamsError(`invalid argument 0 (transaction): ${e.message}`)
    throw e
  }
}

export type FilledRequest = CallRequest & { nonce: bigint; gas: bigint }

/** The request with nonce, fees and gas filled in as a wallet would. */
export async function fill(ctx: RpcContext, req: CallRequest): Promise<FilledRequest> {
  const head = ctx.chain.head
  const fromHex = bytesToHex(req.from!)
  const stateNonce = (await ctx.chain.stateAt(head).getAccount(new Address(req.from!)))?.nonce ?? 0n
  const nonce = req.nonce ?? ctx.pool.pendingNonce(fromHex, stateNonce)
  // EIP-2681: a transaction's nonce is below 2^64 - 1 (geth's and Anvil's words and code).
  if (nonce >= MAX_UINT64) throw new RpcError(-32000, `nonce has max value: address ${fromHex}, nonce: ${nonce}`)
  const filled: CallRequest = { ...req, nonce }
  const type = callTxType(req, hasLondonBaseFee(head.header))
  if (type < 2) {
    filled.gasPrice = req.gasPrice ?? (await suggestGasPrice(ctx))
  } else {
    const nextBaseFee = ctx.chain.pendingBaseFee() ?? 0n
    let tip = req.maxPriorityFeePerGas ?? (await suggestPriorityFee(ctx))
    const maxFee = req.maxFeePerGas ?? 2n * nextBaseFee + tip
    if (tip > maxFee) tip = maxFee
    filled.maxPriorityFeePerGas = tip
    filled.maxFeePerGas = maxFee
  }
  if (req.gas !== undefined) return { ...filled, nonce, gas: req.gas }
  const estimate = await mapCallErrors(ctx.chain.common, () =>
    // The gas of the message alone: whether the sender can pay is the pool's question.
    estimateGas(ctx.chain, head, filled, { gasCap: ctx.settings.rpcGasCap, isBalanceChecked: false }),
  )
  if (estimate.failure) throw failedCallError(estimate.failure)
  return { ...filled, nonce, gas: estimate.gas }
}

/** The filled request as an unsigned transaction of the next block's rules. */
export function unsignedTransaction(ctx: RpcContext, req: FilledRequest): TypedTransaction {
  const fees = {
    gasPrice: req.gasPrice ?? 0n,
    maxFeePerGas: req.maxFeePerGas ?? 0n,
    maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n,
    maxFeePerBlobGas: req.maxFeePerBlobGas ?? 0n,
  }
  try {
    return buildCallTransaction(ctx.chain.commonForNextBlock(), req, req.gas, req.nonce, fees)
  } catch (e) {
    throw new InvalidParamsError(`Invalid params: ${(e as Error).message}`)
  }
}

export function sign(ctx: RpcContext, req: FilledRequest, key: Uint8Array): TypedTransaction {
  return unsignedTransaction(ctx, req).sign(key)
}

/**
 * A transaction from an impersonated account: signed with a key of no account (derived from the
 * sender, so two senders' identical transactions differ), then told its sender. The pool and the
 * sealer take the sender from the transaction object; the chain stores it with the block, so that
 * reads and replays use it too.
 */
function impersonate(ctx: RpcContext, req: FilledRequest): TypedTransaction {
  const signed = sign(ctx, req, keccak_256(req.from!))
  const tx = createTxFromRLP(signed.serialize(), { common: signed.common, freeze: false })
  const sender = new Address(req.from!)
  tx.getSenderAddress = () => sender
  return tx
}

/**
 * The transaction `eth_sendTransaction` sends for a request (`raw`, not yet decoded): filled in,
 * signed by an unlocked dev account or made for an impersonated one; refused otherwise.
 */
export async function transactionFromRequest(ctx: RpcContext, raw: unknown): Promise<TypedTransaction> {
  const from = (raw as { from?: unknown } | undefined)?.from
  const fromHex = typeof from === 'string' ? from.toLowerCase() : undefined
  const key = unlockedKey(ctx, fromHex)
  const isImpersonated = fromHex !== undefined && ctx.devTools?.isImpersonated(fromHex) === true
  if (!key && !isImpersonated) throw besuError('sendTxNotAvailable')
  const req = decodeRequest(raw)
  if (req.blobVersionedHashes !== undefined)
    throw new InvalidParamsError('Invalid params: blob transactions need blobs; use eth_sendRawTransaction')
  const filled = await fill(ctx, req)
  return key ? sign(ctx, filled, key) : impersonate(ctx, filled)
}

/**
 * Signs and sends a transaction from an unlocked dev account, or sends one from an impersonated
 * account. Spec: execution-apis src/eth/sign.yaml
 */
export const sendTransaction = defineMethod({
  name: 'eth_sendTransaction',
  params: [p.any.optional()],
  handler: async (ctx: RpcContext, [raw]) => submitTransaction(ctx, await transactionFromRequest(ctx, raw)),
})

/**
 * Anvil's `eth_sendUnsignedTransaction`: a transaction from any account, without its key, on the dev
 * chain (as if the sender were impersonated).
 */
export const sendUnsignedTransaction = defineMethod({
  name: 'eth_sendUnsignedTransaction',
  params: [p.named('transaction', p.object)],
  handler: async (ctx: RpcContext, [raw]) => {
    if (!ctx.devTools) throw besuError('sendTxNotAvailable')
    const req = decodeRequest(raw)
    if (req.from === undefined) throw new InvalidParamsError('invalid argument 0 (transaction): from is required')
    if (req.blobVersionedHashes !== undefined)
      throw new InvalidParamsError('Invalid params: blob transactions need blobs; use eth_sendRawTransaction')
    return submitTransaction(ctx, impersonate(ctx, await fill(ctx, req)))
  },
})
