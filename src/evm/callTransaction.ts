/**
 * Turns a call request into the transaction object the VM runs: the type follows the fields given
 * (or `type`), the sender is impersonated (no signature), and fee fields follow Besu's simulator.
 */
import type { Common } from '@ethereumjs/common'
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { bigintToBytes, bytesToBigint } from '../primitives/hex.ts'
import { decodeWithoutKzg } from './kzgPresence.ts'

export interface AccessListEntry {
  address: Uint8Array
  storageKeys: Uint8Array[]
}

export interface Authorization {
  chainId: bigint
  address: Uint8Array
  nonce: bigint
  yParity: bigint
  r: bigint
  s: bigint
}

/** A message to simulate, as eth_call / eth_estimateGas / eth_simulateV1 take it. */
export interface CallRequest {
  from?: Uint8Array
  /** Absent: a contract creation. */
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  value?: bigint
  data?: Uint8Array
  nonce?: bigint
  accessList?: AccessListEntry[]
  authorizationList?: Authorization[]
  blobVersionedHashes?: Uint8Array[]
  maxFeePerBlobGas?: bigint
  type?: number
  /** Besu's `strict`: check the sender can pay (true) or not (false); unset = decided by the fee fields. */
  strict?: boolean
}

/** The fee fields the transaction is built with, after Besu's defaults. */
export interface CallFees {
  gasPrice: bigint
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
  maxFeePerBlobGas: bigint
}

export const ZERO_ADDRESS = new Uint8Array(20)

/** Which envelope a request needs: explicit `type` first, then the fields it carries. */
export function callTxType(req: CallRequest, isLondon: boolean): number {
  if (req.type !== undefined) return req.type
  if (req.authorizationList !== undefined) return 4
  if (req.blobVersionedHashes !== undefined) return 3
  if (req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined) return 2
  if (isLondon && req.gasPrice === undefined) return 2
  if (req.accessList !== undefined) return 1
  return 0
}

/** An unsigned transaction whose sender is `from`, ready for `runTx`. */
export function buildCallTransaction(
  common: Common,
  req: CallRequest,
  gasLimit: bigint,
  nonce: bigint,
  fees: CallFees,
): TypedTransaction {
  const type = callTxType(req, common.isActivatedEIP(1559))
  const accessList = (req.accessList ?? []).map((e) => [e.address, e.storageKeys] as [Uint8Array, Uint8Array[]])
  const base = { nonce, gasLimit, to: req.to, value: req.value ?? 0n, data: req.data ?? new Uint8Array(0) }
  const opts = { common, freeze: false, allowUnlimitedInitCodeSize: false }
  const market = {
    ...base,
    chainId: common.chainId(),
    accessList,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  }
  let tx: TypedTransaction
  switch (type) {
    case 0:
      tx = createLegacyTx({ ...base, gasPrice: fees.gasPrice }, opts)
      break
    case 1:
      tx = createAccessList2930Tx({ ...base, chainId: common.chainId(), accessList, gasPrice: fees.gasPrice }, opts)
      break
    case 3:
      tx = decodeWithoutKzg(common, () =>
        createBlob4844Tx(
          { ...market, blobVersionedHashes: req.blobVersionedHashes ?? [], maxFeePerBlobGas: fees.maxFeePerBlobGas },
          opts,
        ),
      )
      break
    case 4:
      tx = createEOACode7702Tx(
        { ...market, authorizationList: (req.authorizationList ?? []).map(authorizationBytes) },
        opts,
      )
      break
    default:
      tx = createFeeMarket1559Tx(market, opts)
  }
  const sender = new Address(req.from ?? ZERO_ADDRESS)
  Object.assign(tx, { getSenderAddress: () => sender })
  return tx
}

function authorizationBytes(
  a: Authorization,
): [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array] {
  return [
    bigintToBytes(a.chainId),
    a.address,
    bigintToBytes(a.nonce),
    bigintToBytes(a.yParity),
    bigintToBytes(a.r),
    bigintToBytes(a.s),
  ]
}

/** The call request a signed transaction amounts to (trace_rawTransaction runs it as a call). */
export function callRequestOf(tx: TypedTransaction): CallRequest {
  const t = tx as TypedTransaction & {
    gasPrice?: bigint
    maxFeePerGas?: bigint
    maxPriorityFeePerGas?: bigint
    accessList?: [Uint8Array, Uint8Array[]][]
    authorizationList?: Uint8Array[][]
    blobVersionedHashes?: Uint8Array[]
    maxFeePerBlobGas?: bigint
  }
  return {
    from: tx.getSenderAddress().bytes,
    to: tx.to?.bytes,
    gas: tx.gasLimit,
    gasPrice: t.gasPrice,
    maxFeePerGas: t.maxFeePerGas,
    maxPriorityFeePerGas: t.maxPriorityFeePerGas,
    value: tx.value,
    data: tx.data,
    nonce: tx.nonce,
    accessList: t.accessList?.map(([address, storageKeys]) => ({ address, storageKeys })),
    authorizationList: t.authorizationList?.map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: bytesToBigint(chainId),
      address,
      nonce: bytesToBigint(nonce),
      yParity: bytesToBigint(yParity),
      r: bytesToBigint(r),
      s: bytesToBigint(s),
    })),
    blobVersionedHashes: t.blobVersionedHashes,
    maxFeePerBlobGas: t.maxFeePerBlobGas,
    type: tx.type,
  }
}
