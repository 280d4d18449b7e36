/**
 * Blocks in the Engine API's ExecutionPayload shapes, shared by the ENGINE group and
 * testing_buildBlockV1 (which answers with the payload engine_getPayload would return).
 */
import type { Block } from '@ethereumjs/block'
import { bytesToHex, toQuantity } from '../primitives/hex.ts'

type Json = Record<string, unknown>

export function withdrawalJson(w: {
  index: bigint
  validatorIndex: bigint
  address: { bytes: Uint8Array }
  amount: bigint
}): Json {
  return {
    index: toQuantity(w.index),
    validatorIndex: toQuantity(w.validatorIndex),
    address: bytesToHex(w.address.bytes),
    amount: toQuantity(w.amount),
  }
}

/** A block as an ExecutionPayload: V1 fields, plus V2's withdrawals and V3's blob gas when the block has them. */
export function blockToPayloadJson(block: Block): Json {
  const h = block.header
  const out: Json = {
    parentHash: bytesToHex(h.parentHash),
    feeRecipient: bytesToHex(h.coinbase.bytes),
    stateRoot: bytesToHex(h.stateRoot),
    receiptsRoot: bytesToHex(h.receiptTrie),
    logsBloom: bytesToHex(h.logsBloom),
    prevRandao: bytesToHex(h.mixHash),
    blockNumber: toQuantity(h.number),
    gasLimit: toQuantity(h.gasLimit),
    gasUsed: toQuantity(h.gasUsed),
    timestamp: toQuantity(h.timestamp),
    extraData: bytesToHex(h.extraData),
    baseFeePerGas: toQuantity(h.baseFeePerGas ?? 0n),
    blockHash: bytesToHex(block.hash()),
    transactions: block.transactions.map((tx) => bytesToHex(tx.serialize())),
  }
  if (block.withdrawals !== undefined) out.withdrawals = block.withdrawals.map(withdrawalJson)
  if (h.blobGasUsed !== undefined) out.blobGasUsed = toQuantity(h.blobGasUsed)
  if (h.excessBlobGas !== undefined) out.excessBlobGas = toQuantity(h.excessBlobGas)
  if (h.slotNumber !== undefined) out.slotNumber = toQuantity(h.slotNumber)
  return out
}

/** ExecutionPayloadBodyV1: the transactions and withdrawals (null before Shanghai) of a block. */
export function blockToBodyJson(block: Block): Json {
  return {
    transactions: block.transactions.map((tx) => bytesToHex(tx.serialize())),
    withdrawals: block.withdrawals === undefined ? null : block.withdrawals.map(withdrawalJson),
  }
}
