/**
 * Blocks, transactions, receipts and logs as JSON-RPC objects, in the field sets the execution-apis
 * spec fixes (which Besu follows): `null` versus absent, hex quantities without leading zeros.
 */
import type { Block, BlockHeader } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { computeContractAddress } from '../chain/addresses.ts'
import type { Receipt } from '../chain/receipts.ts'
import { ascii, type JsonText, type JsonTextWriter } from '../jsonrpc/jsonText.ts'
import { bytesToHex, type Hex, toQuantity } from '../primitives/hex.ts'
import type { StoredLog } from '../storage/chainStore.ts'
import { fees } from '../txpool/txPool.ts'
import { withdrawalJson } from './payloadJson.ts'

type Json = Record<string, unknown>

/**
 * A block header as JSON-RPC block results show it. No `totalDifficulty`: Besu removed it from every
 * block result (besu PR #11179, for hive's eth_getBlockBy* tests), as geth and Nethermind did.
 */
export function formatHeader(h: BlockHeader, hash: Uint8Array, sizeBytes?: number): Json {
  const out: Json = {
    baseFeePerGas: h.baseFeePerGas === undefined ? undefined : toQuantity(h.baseFeePerGas),
    blobGasUsed: h.blobGasUsed === undefined ? undefined : toQuantity(h.blobGasUsed),
    blockAccessListHash: h.blockAccessListHash === undefined ? undefined : bytesToHex(h.blockAccessListHash),
    difficulty: toQuantity(h.difficulty),
    excessBlobGas: h.excessBlobGas === undefined ? undefined : toQuantity(h.excessBlobGas),
    extraData: bytesToHex(h.extraData),
    gasLimit: toQuantity(h.gasLimit),
    gasUsed: toQuantity(h.gasUsed),
    hash: bytesToHex(hash),
    logsBloom: bytesToHex(h.logsBloom),
    miner: bytesToHex(h.coinbase.bytes),
    mixHash: bytesToHex(h.mixHash),
    nonce: bytesToHex(h.nonce),
    number: toQuantity(h.number),
    parentBeaconBlockRoot: h.parentBeaconBlockRoot === undefined ? undefined : bytesToHex(h.parentBeaconBlockRoot),
    parentHash: bytesToHex(h.parentHash),
    receiptsRoot: bytesToHex(h.receiptTrie),
    requestsHash: h.requestsHash === undefined ? undefined : bytesToHex(h.requestsHash),
    sha3Uncles: bytesToHex(h.uncleHash),
    size: sizeBytes === undefined ? undefined : toQuantity(sizeBytes),
    slotNumber: h.slotNumber === undefined ? undefined : toQuantity(h.slotNumber),
    stateRoot: bytesToHex(h.stateRoot),
    timestamp: toQuantity(h.timestamp),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    withdrawalsRoot: h.withdrawalsRoot === undefined ? undefined : bytesToHex(h.withdrawalsRoot),
  }
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out
}

/** A block; `senders` are needed only when `isFull`. */
export function formatBlock(block: Block, isFull: boolean, senders: Uint8Array[] = []): Json {
  const h = block.header
  const out = formatHeader(h, block.hash(), block.serialize().length)
  out.transactions = isFull
    ? block.transactions.map((tx, i) => formatTransaction(tx, senders[i], { block, index: i }))
    : block.transactions.map((tx) => bytesToHex(tx.hash()))
  out.uncles = block.uncleHeaders.map((u) => bytesToHex(u.hash()))
  if (block.withdrawals !== undefined) {
    out.withdrawals = block.withdrawals.map(withdrawalJson)
  }
  return sortKeys(out)
}

export interface TxLocation {
  block: Block
  index: number
}

/** A transaction, mined (`at`) or pending. */
export function formatTransaction(tx: TypedTransaction, sender: Uint8Array, at?: TxLocation): Json {
  const t = tx as TypedTransaction & {
    chainId?: bigint
    accessList?: [Uint8Array, Uint8Array[]][]
    maxFeePerBlobGas?: bigint
    blobVersionedHashes?: (string | Uint8Array)[]
    authorizationList?: Uint8Array[][]
  }
  const baseFee = at?.block.header.baseFeePerGas
  const { maxFee, priorityFee } = fees(tx)
  const out: Json = {
    blockHash: at ? bytesToHex(at.block.hash()) : null,
    blockNumber: at ? toQuantity(at.block.header.number) : null,
    blockTimestamp: at ? toQuantity(at.block.header.timestamp) : undefined,
    from: bytesToHex(sender),
    gas: toQuantity(tx.gasLimit),
    gasPrice: toQuantity(
      tx.type >= 2 && at && baseFee !== undefined ? effectivePrice(maxFee, priorityFee, baseFee) : maxFee,
    ),
    maxFeePerGas: tx.type >= 2 ? toQuantity(maxFee) : undefined,
    maxPriorityFeePerGas: tx.type >= 2 ? toQuantity(priorityFee) : undefined,
    maxFeePerBlobGas: t.maxFeePerBlobGas === undefined ? undefined : toQuantity(t.maxFeePerBlobGas),
    hash: bytesToHex(tx.hash()),
    input: bytesToHex(tx.data),
    nonce: toQuantity(tx.nonce),
    to: tx.to ? bytesToHex(tx.to.bytes) : null,
    transactionIndex: at ? toQuantity(at.index) : null,
    value: toQuantity(tx.value),
    type: toQuantity(tx.type),
    accessList:
      tx.type >= 1
        ? (t.accessList ?? []).map(([a, keys]) => ({ address: bytesToHex(a), storageKeys: keys.map(bytesToHex) }))
        : undefined,
    chainId:
      tx.type >= 1 || (tx.v !== undefined && tx.v > 28n) ? toQuantity(t.chainId ?? tx.common.chainId()) : undefined,
    // @ethereumjs/tx v10 holds versioned hashes as hex strings.
    blobVersionedHashes: t.blobVersionedHashes?.map((h) => (typeof h === 'string' ? h : bytesToHex(h))),
    authorizationList: tx.type === 4 ? (t.authorizationList ?? []).map(formatAuthorization) : undefined,
    v: toQuantity(tx.v ?? 0n),
    r: toQuantity(tx.r ?? 0n),
    s: toQuantity(tx.s ?? 0n),
    yParity: tx.type >= 1 ? toQuantity(tx.v ?? 0n) : undefined,
    // Besu's pending-transaction shape adds the sender's public key and the signed bytes.
    publicKey: at ? undefined : bytesToHex(tx.getSenderPublicKey()),
    raw: at ? undefined : bytesToHex(tx.serialize()),
  }
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out
}

function formatAuthorization(a: Uint8Array[]): Json {
  const [chainId, address, nonce, yParity, r, s] = a
  const q = (b: Uint8Array) => toQuantity(bytesToBig(b))
  return { chainId: q(chainId), address: bytesToHex(address), nonce: q(nonce), yParity: q(yParity), r: q(r), s: q(s) }
}

function bytesToBig(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(bytesToHex(b))
}

export function effectivePrice(maxFee: bigint, priorityFee: bigint, baseFee: bigint): bigint {
  const tip = maxFee - baseFee < priorityFee ? maxFee - baseFee : priorityFee
  return baseFee + tip
}

export interface ReceiptContext {
  block: Block
  index: number
  sender: Uint8Array
  receipt: Receipt
  /** Cumulative gas of the previous receipt (0 for the first). */
  previousCumulativeGas: bigint
  /** Index in the block of this receipt's first log. */
  firstLogIndex: number
  /** Blob base fee of the block (for blob transactions). */
  blobGasPrice?: bigint
}

export function formatReceipt(c: ReceiptContext): Json {
  const tx = c.block.transactions[c.index]
  const { maxFee, priorityFee } = fees(tx)
  const baseFee = c.block.header.baseFeePerGas
  const blobHashes = (tx as { blobVersionedHashes?: Uint8Array[] }).blobVersionedHashes
  const out: Json = {
    blobGasPrice: blobHashes ? toQuantity(c.blobGasPrice ?? 1n) : undefined,
    blobGasUsed: blobHashes ? toQuantity(BigInt(blobHashes.length) * 131072n) : undefined,
    blockHash: bytesToHex(c.block.hash()),
    blockNumber: toQuantity(c.block.header.number),
    contractAddress: tx.to ? null : bytesToHex(computeContractAddress(c.sender, tx.nonce)),
    cumulativeGasUsed: toQuantity(c.receipt.cumulativeGasUsed),
    effectiveGasPrice: toQuantity(baseFee === undefined ? maxFee : effectivePrice(maxFee, priorityFee, baseFee)),
    from: bytesToHex(c.sender),
    gasUsed: toQuantity(c.receipt.cumulativeGasUsed - c.previousCumulativeGas),
    logs: c.receipt.logs.map(([address, topics, data], i) =>
      formatLogFields(c.block, bytesToHex(tx.hash()), c.index, c.firstLogIndex + i, address, topics, data),
    ),
    logsBloom: bytesToHex(c.receipt.bloom),
    root: c.receipt.stateRoot ? bytesToHex(c.receipt.stateRoot) : undefined,
    status: c.receipt.status === undefined ? undefined : toQuantity(c.receipt.status),
    to: tx.to ? bytesToHex(tx.to.bytes) : null,
    transactionHash: bytesToHex(tx.hash()),
    transactionIndex: toQuantity(c.index),
    // Besu's, with --revert-reason-enabled: the REVERT's bytes as recorded when the block was executed.
    revertReason: c.receipt.revertReason ? bytesToHex(c.receipt.revertReason) : undefined,
    type: toQuantity(tx.type),
  }
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out
}

function formatLogFields(
  block: Block,
  txHash: Hex,
  txIndex: number,
  logIndex: number,
  address: Uint8Array,
  topics: Uint8Array[],
  data: Uint8Array,
): Json {
  return {
    address: bytesToHex(address),
    topics: topics.map(bytesToHex),
    data: bytesToHex(data),
    blockNumber: toQuantity(block.header.number),
    transactionHash: txHash,
    transactionIndex: toQuantity(txIndex),
    blockHash: bytesToHex(block.hash()),
    blockTimestamp: toQuantity(block.header.timestamp),
    logIndex: toQuantity(logIndex),
    removed: false,
  }
}

/** A log from the log index; `timestamp` is its block's. */
export function formatStoredLog(l: StoredLog, timestamp: bigint, isRemoved = false): Json {
  return {
    address: bytesToHex(l.address),
    topics: l.topics.map(bytesToHex),
    data: bytesToHex(l.data),
    blockNumber: toQuantity(l.blockNumber),
    transactionHash: bytesToHex(l.txHash),
    transactionIndex: toQuantity(l.txIndex),
    blockHash: bytesToHex(l.blockHash),
    blockTimestamp: toQuantity(timestamp),
    logIndex: toQuantity(l.logIndex),
    removed: isRemoved,
  }
}

const LOG_KEYS = {
  first: ascii('{"address":'),
  next: ascii(',{"address":'),
  topics: ascii(',"topics":['),
  data: ascii('],"data":'),
  blockNumber: ascii(',"blockNumber":'),
  transactionHash: ascii(',"transactionHash":'),
  transactionIndex: ascii(',"transactionIndex":'),
  blockHash: ascii(',"blockHash":'),
  blockTimestamp: ascii(',"blockTimestamp":'),
  logIndex: ascii(',"logIndex":'),
  kept: ascii(',"removed":false}'),
  removed: ascii(',"removed":true}'),
}

/**
 * Logs from the log index as the JSON text of an array of `formatStoredLog`'s objects (the same
 * text `JSON.stringify` gives them), written without building them; `timestampOf` gives each log's
 * block timestamp.
 */
export function writeStoredLogs(
  w: JsonTextWriter,
  logs: StoredLog[],
  timestampOf: (l: StoredLog) => bigint,
  isRemoved = false,
): JsonText {
  w.raw('[')
  for (let i = 0; i < logs.length; i++) {
    const l = logs[i]
    w.bytes(i === 0 ? LOG_KEYS.first : LOG_KEYS.next)
    w.hex(l.address)
    w.bytes(LOG_KEYS.topics)
    for (let t = 0; t < l.topics.length; t++) {
      if (t > 0) w.raw(',')
      w.hex(l.topics[t])
    }
    w.bytes(LOG_KEYS.data)
    w.hex(l.data)
    w.bytes(LOG_KEYS.blockNumber)
    w.quantity(l.blockNumber)
    w.bytes(LOG_KEYS.transactionHash)
    w.hex(l.txHash)
    w.bytes(LOG_KEYS.transactionIndex)
    w.quantity(l.txIndex)
    w.bytes(LOG_KEYS.blockHash)
    w.hex(l.blockHash)
    w.bytes(LOG_KEYS.blockTimestamp)
    w.quantity(timestampOf(l))
    w.bytes(LOG_KEYS.logIndex)
    w.quantity(l.logIndex)
    w.bytes(isRemoved ? LOG_KEYS.removed : LOG_KEYS.kept)
  }
  w.raw(']')
  return w.take()
}

function sortKeys(o: Json): Json {
  const out: Json = {}
  for (const k of Object.keys(o).sort()) out[k] = o[k]
  return out
}
