/**
 * An ExecutionPayload (plus newPayloadV3/V4's separate parent beacon block root and execution
 * requests) as a block: the roots a payload leaves out are recomputed, then the block hash is
 * checked against the payload's.
 */
import {
  type Block,
  createBlock,
  genRequestsRoot,
  genTransactionsTrieRoot,
  genWithdrawalsTrieRoot,
} from '@ethereumjs/block'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import {
  CLRequest,
  type CLRequestType,
  createBlockLevelAccessListFromRLP,
  createWithdrawal,
  equalsBytes,
} from '@ethereumjs/util'
import { sha256 } from '@noble/hashes/sha2.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import type { Chain } from '../chain/chain.ts'
import { decodeWithoutKzg } from '../evm/kzgPresence.ts'
import { bytesToHex } from '../primitives/hex.ts'
import type { ExecutionPayload } from './payloadCodec.ts'

/** `blockHash`: the payload's fields do not hash to its blockHash; `malformed`: they do not make a block. */
export class PayloadBlockError extends Error {
  readonly kind: 'blockHash' | 'malformed'

  constructor(kind: 'blockHash' | 'malformed', message: string) {
    super(message)
    this.kind = kind
    this.name = 'PayloadBlockError'
  }
}

export interface PayloadExtras {
  parentBeaconBlockRoot?: Uint8Array
  /** Type-prefixed EIP-7685 requests (newPayloadV4). */
  executionRequests?: Uint8Array[]
}

/** The block a payload describes; throws PayloadBlockError. */
export async function payloadToBlock(chain: Chain, payload: ExecutionPayload, extras: PayloadExtras): Promise<Block> {
  const common = chain.common.copy()
  common.setHardforkBy({ blockNumber: payload.blockNumber, timestamp: payload.timestamp })
  const transactions: TypedTransaction[] = payload.transactions.map((raw, i) => {
    try {
      return decodeWithoutKzg(common, () => createTxFromRLP(raw, { common }))
    } catch (e) {
      throw new PayloadBlockError('malformed', `Invalid transaction at index ${i}: ${(e as Error).message}`)
    }
  })
  const withdrawals = payload.withdrawals?.map((w) => createWithdrawal(w))
  const requestsHash = extras.executionRequests
    ? genRequestsRoot(
        extras.executionRequests.map((r) => new CLRequest(r[0] as CLRequestType, r.subarray(1))),
        sha256,
      )
    : undefined
  const blockAccessListHash = accessListHash(common.isActivatedEIP(7928), payload.blockAccessList)
  const transactionsTrie = await genTransactionsTrieRoot(transactions)
  const withdrawalsRoot = withdrawals ? await genWithdrawalsTrieRoot(withdrawals) : undefined
  let block: Block
  try {
    block = decodeWithoutKzg(common, () =>
      createBlock(
        {
          header: {
            parentHash: payload.parentHash,
            coinbase: payload.feeRecipient,
            stateRoot: payload.stateRoot,
            transactionsTrie,
            receiptTrie: payload.receiptsRoot,
            logsBloom: payload.logsBloom,
            difficulty: 0n,
            number: payload.blockNumber,
            gasLimit: payload.gasLimit,
            gasUsed: payload.gasUsed,
            timestamp: payload.timestamp,
            extraData: payload.extraData,
            mixHash: payload.prevRandao,
            nonce: new Uint8Array(8),
            baseFeePerGas: payload.baseFeePerGas,
            withdrawalsRoot,
            blobGasUsed: payload.blobGasUsed,
            excessBlobGas: payload.excessBlobGas,
            parentBeaconBlockRoot: extras.parentBeaconBlockRoot,
            requestsHash,
            blockAccessListHash,
            slotNumber: common.isActivatedEIP(7843) ? payload.slotNumber : undefined,
          },
          transactions,
          withdrawals,
        },
        { common },
      ),
    )
  } catch (e) {
    throw new PayloadBlockError('malformed', (e as Error).message)
  }
  if (!equalsBytes(block.hash(), payload.blockHash)) {
    throw new PayloadBlockError(
      'blockHash',
      `Invalid blockHash, expected ${bytesToHex(payload.blockHash)}, computed ${bytesToHex(block.hash())}`,
    )
  }
  return block
}

/**
 * The header's `blockAccessListHash` from the payload's access list (EIP-7928): Besu decodes the
 * list first and answers INVALID, with the decoder's reason, when the bytes are not a list's
 * encoding (an absent list is a -32602 of newPayloadV5's). The executed list is checked on import.
 */
function accessListHash(isActive: boolean, encoded: Uint8Array | undefined): Uint8Array | undefined {
  if (!isActive) return undefined
  if (encoded === undefined) throw new PayloadBlockError('malformed', 'Missing block access list field')
  const reason = accessListDecodeFailure(encoded)
  if (reason !== undefined)
    throw new PayloadBlockError('malformed', `Failed to decode block access list payload parameter (${reason})`)
  return keccak_256(encoded)
}

/** Why `encoded` is not an access list's RLP (Besu's RLP reader's words for a top item that is not a list). */
function accessListDecodeFailure(encoded: Uint8Array): string | undefined {
  if (encoded.length === 0) return 'Expected current item to be a list, but the input is empty'
  const first = encoded[0]
  if (first < 0xc0) {
    const kind = first < 0x80 ? 'BYTE_ELEMENT' : first < 0xb8 ? 'SHORT_ELEMENT' : 'LONG_ELEMENT'
    return `Expected current item to be a list, but it is: ${kind}`
  }
  try {
    createBlockLevelAccessListFromRLP(encoded)
    return undefined
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}
