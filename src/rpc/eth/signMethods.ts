/**
 * Node-side signing with the unlocked dev accounts, as Anvil's and Hardhat's nodes offer it to
 * wallets that hold no key (ethers' `JsonRpcSigner`, viem's JSON-RPC accounts): EIP-191 messages
 * (`eth_sign`, `personal_sign`), EIP-712 typed data (`eth_signTypedData_v4`), transactions
 * (`eth_signTransaction`) and geth's `eth_fillTransaction`. The signers are exactly the accounts
 * `eth_sendTransaction` signs for; an impersonated account has no key, so it cannot sign (as in
 * Anvil: -32602 `No Signer available`). Signatures are r ‖ s ‖ v with v 27 or 28.
 */
import { keccak_256 } from '@noble/hashes/sha3.js'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { signHash } from '../../primitives/nodeKey.ts'
import type { RpcContext } from '../context.ts'
import { formatTransaction } from '../format.ts'
import { parseTypedData, personalMessageHash, TypedDataError, typedDataHash } from './messageHashing.ts'
import { decodeRequest, fill, sign, unlockedKey, unsignedTransaction } from './sendTransactionMethod.ts'

/** The key of an unlocked dev account; Anvil's error for any other address. */
function signerKey(ctx: RpcContext, address: Uint8Array): Uint8Array {
  const key = unlockedKey(ctx, bytesToHex(address))
  if (!key) throw new InvalidParamsError('No Signer available')
  return key
}

/** A 65-byte signature r ‖ s ‖ v, v = 27 + the recovery id, as wallets return it. */
function signDigest(digest: Uint8Array, key: Uint8Array): string {
  const sig = signHash(digest, key)
  sig[64] += 27
  return bytesToHex(sig)
}

/** Signs an EIP-191 personal message. Spec: execution-apis src/eth/sign.yaml */
const ethSign = defineMethod({
  name: 'eth_sign',
  params: [p.address, p.named('message', p.data)],
  handler: (ctx: RpcContext, [address, message]) => signDigest(personalMessageHash(message), signerKey(ctx, address)),
})

/** `eth_sign` with the arguments the other way round, as MetaMask and Anvil take them. */
const personalSign = defineMethod({
  name: 'personal_sign',
  params: [p.named('message', p.data), p.address],
  handler: (ctx: RpcContext, [message, address]) => signDigest(personalMessageHash(message), signerKey(ctx, address)),
})

/** Signs EIP-712 typed data, given as an object or as its JSON text. Spec: EIP-712 */
const signTypedDataV4 = defineMethod({
  name: 'eth_signTypedData_v4',
  params: [p.address, p.named('typedData', p.any)],
  handler: (ctx: RpcContext, [address, raw]) => {
    let digest: Uint8Array
    try {
      digest = typedDataHash(parseTypedData(raw))
    } catch (e) {
      if (e instanceof TypedDataError) throw new InvalidParamsError(`invalid argument 1 (typedData): ${e.message}`)
      throw e
    }
    return signDigest(digest, signerKey(ctx, address))
  },
})

/** Fills a request as `eth_sendTransaction` does and answers it signed, not sent. Spec: execution-apis src/eth/sign.yaml */
const signTransaction = defineMethod({
  name: 'eth_signTransaction',
  params: [p.named('transaction', p.object)],
  handler: async (ctx: RpcContext, [raw]) => {
    const req = decodeRequest(raw)
    if (req.from === undefined) throw new InvalidParamsError('invalid argument 0 (transaction): from is required')
    const key = signerKey(ctx, req.from)
    if (req.blobVersionedHashes !== undefined)
      throw new InvalidParamsError('Invalid params: blob transactions need blobs; use eth_sendRawTransaction')
    return bytesToHex(sign(ctx, await fill(ctx, req), key).serialize())
  },
})

/**
 * geth's `eth_fillTransaction`: the request with nonce, fees and gas filled in, unsigned, as
 * `{raw, tx}` (`raw` its encoding with a zero signature). Any sender (the zero address when `from`
 * is left out); no key is needed.
 */
const fillTransaction = defineMethod({
  name: 'eth_fillTransaction',
  params: [p.named('transaction', p.object)],
  handler: async (ctx: RpcContext, [raw]) => {
    const req = decodeRequest(raw)
    const from = req.from ?? new Uint8Array(20)
    if (req.blobVersionedHashes !== undefined)
      throw new InvalidParamsError('Invalid params: blob transactions need blobs; use eth_sendRawTransaction')
    const tx = unsignedTransaction(ctx, await fill(ctx, { ...req, from }))
    const encoded = tx.serialize()
    // An unsigned transaction has no hash of its own; wallets show the one of its zero-signature encoding.
    tx.hash = () => keccak_256(encoded)
    tx.getSenderPublicKey = () => new Uint8Array(64)
    const { publicKey: _, raw: __, ...shown } = formatTransaction(tx, from) as Record<string, unknown>
    return { raw: bytesToHex(encoded), tx: shown }
  },
})

export const signMethods = [ethSign, personalSign, signTypedDataV4, signTransaction, fillTransaction]
