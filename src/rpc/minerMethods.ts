/**
 * Besu's MINER group: the mining settings read and changed while the node runs. The minimum gas price
 * (the pool's, `--min-gas-price`), the minimum priority fee (the tip a block takes from transactions
 * without priority, `--min-priority-fee`), the extraData and target gas limit of every block the node
 * builds (dev, clique and BFT blocks, Engine API payloads), the coinbase of dev blocks, and starting or
 * stopping the node's own sealing. Spec: Besu's MinerJsonRpcMethods; errors from its RpcErrorType.
 */
import { codec, decoders, p } from '../jsonrpc/codecs.ts'
import { defineMethod } from '../jsonrpc/defineMethod.ts'
import { besuError, InvalidRequestError } from '../jsonrpc/errors.ts'
import { bytesToHex, hexToBytes, toQuantity } from '../primitives/hex.ts'
import type { MiningControl, RpcContext } from './context.ts'

const MAX_EXTRA_DATA_BYTES = 32
/** Besu's bound on a target gas limit (AbstractGasLimitSpecification): the protocol's minimum, and a Long. */
const MIN_TARGET_GAS_LIMIT = 5000n
const MAX_TARGET_GAS_LIMIT = (1n << 63n) - 1n

/** This node's mining; a node that builds no blocks has none, and refuses as Besu refuses an unsupported operation. */
function miningOf(ctx: RpcContext): MiningControl {
  if (!ctx.mining) throw new InvalidRequestError()
  return ctx.mining
}

/** A wei amount as Besu's Wei.fromHexString reads it: a hex string, leading zeros allowed, within 256 bits. */
const wei = (label: string) =>
  codec(label, (v) =>
    typeof v === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(v)
      ? BigInt(v)
      : decoders.fail('expected hex of at most 32 bytes'),
  )

/** Besu's extraData parameter: hex (with or without 0x, an odd length padded on the left), at most 32 bytes. */
const extraData = codec('extraData', (v) => {
  if (typeof v !== 'string') return decoders.fail('expected a hex string')
  const digits = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v
  if (!/^[0-9a-fA-F]*$/.test(digits)) return decoders.fail('expected a hex string')
  const bytes = hexToBytes(`0x${digits.length % 2 === 1 ? `0${digits}` : digits}`)
  if (bytes.length > MAX_EXTRA_DATA_BYTES) return decoders.fail(`at most ${MAX_EXTRA_DATA_BYTES} bytes`)
  return bytes
})

/** Besu's target gas limit parameter: a Long (a JSON number or a decimal string; hex as a quantity). */
const targetGasLimit = codec('targetGasLimit', (v) => {
  const n =
    typeof v === 'number' && Number.isSafeInteger(v)
      ? BigInt(v)
      : typeof v === 'string' && /^-?\d+$/.test(v)
        ? BigInt(v)
        : decoders.lenientQuantity(v)
  if (n < MIN_TARGET_GAS_LIMIT || n > MAX_TARGET_GAS_LIMIT)
    return decoders.fail(`expected ${MIN_TARGET_GAS_LIMIT}..${MAX_TARGET_GAS_LIMIT}`)
  return n
})

const start = defineMethod({
  name: 'miner_start',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => miningOf(ctx).start(),
})

/** Besu answers true whatever its coordinator did. */
const stop = defineMethod({
  name: 'miner_stop',
  besu: { kinds: [] },
  params: [],
  handler: async (ctx: RpcContext) => {
    await miningOf(ctx).stop()
    return true
  },
})

/** Besu refuses a coinbase where the consensus decides it with -32600 (its UnsupportedOperationException). */
function setCoinbase(name: string) {
  return defineMethod({
    name,
    besu: { kinds: ['address'] },
    params: [p.address],
    handler: (ctx: RpcContext, [address]) => {
      if (!miningOf(ctx).setCoinbase(address)) throw new InvalidRequestError()
      ctx.settings.coinbase = address
      return true
    },
  })
}

/** A minimum's getter and setter (`miner_getMin…` / `miner_setMin…`): Besu answers the setter `true`. */
function minimum(
  suffix: 'GasPrice' | 'PriorityFee',
  kind: 'minGasPrice' | 'minPriorityFee',
  read: (ctx: RpcContext) => bigint,
  write: (ctx: RpcContext, wei: bigint) => void,
) {
  const get = defineMethod({
    name: `miner_getMin${suffix}`,
    besu: { kinds: [] },
    params: [],
    handler: (ctx: RpcContext) => toQuantity(read(ctx)),
  })
  const set = defineMethod({
    name: `miner_setMin${suffix}`,
    besu: { kinds: [kind] },
    params: [wei(kind)],
    handler: (ctx: RpcContext, [value]) => {
      write(ctx, value)
      return true
    },
  })
  return [get, set]
}

const getExtraData = defineMethod({
  name: 'miner_getExtraData',
  besu: { kinds: [] },
  params: [],
  // Besu's Bytes.toShortHexString: the hex without its leading zeros.
  handler: (ctx: RpcContext) =>
    `0x${bytesToHex(miningOf(ctx).miner.extraData ?? new Uint8Array(0))
      .slice(2)
      .replace(/^0+/, '')}`,
})

const setExtraData = defineMethod({
  name: 'miner_setExtraData',
  besu: { kinds: ['extraData'] },
  params: [extraData],
  handler: (ctx: RpcContext, [bytes]) => {
    miningOf(ctx).miner.extraData = bytes
    return true
  },
})

/** Besu answers a JSON-RPC result of null. */
const changeTargetGasLimit = defineMethod({
  name: 'miner_changeTargetGasLimit',
  besu: { kinds: ['targetGasLimit'] },
  params: [targetGasLimit],
  handler: (ctx: RpcContext, [limit]) => {
    if (!ctx.mining) throw besuError('targetGasLimitUnsupported')
    ctx.mining.miner.targetGasLimit = limit
    return null
  },
})

export const minerMethods = [
  start,
  stop,
  setCoinbase('miner_setCoinbase'),
  setCoinbase('miner_setEtherbase'),
  ...minimum(
    'GasPrice',
    'minGasPrice',
    (ctx) => ctx.pool.minGasPrice,
    (ctx, price) => ctx.pool.setMinGasPrice(price),
  ),
  ...minimum(
    'PriorityFee',
    'minPriorityFee',
    (ctx) => ctx.pool.minPriorityFee,
    (ctx, fee) => ctx.pool.setMinPriorityFee(fee),
  ),
  getExtraData,
  setExtraData,
  changeTargetGasLimit,
]
