/**
 * Besu's JSON block format (`blocks import --format=JSON`): a file `{"blocks": [...]}` whose blocks
 * are described by their transactions (`gasLimit`, `gasPrice`, `to`, `value`, `data`, `secretKey`)
 * and optionally `number`, `parentHash`, `coinbase`, `extraData` (keys in any case). Each block is
 * built on its parent here — nonces from the parent's state, signed with the given keys — and then
 * imported like any other block. A clique block is sealed with the node key (one of the signers),
 * as Besu's clique miner does; Besu refuses coinbase/extraData on chains that are not ethash.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { createLegacyTx, type LegacyTx } from '@ethereumjs/tx'
import { Address, privateToAddress } from '@ethereumjs/util'
import { producedBaseFee } from '../chain/baseFee.ts'
import { importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { hasKeccakSeal } from '../chain/classicForks.ts'
import { type CliqueHeaderFields, cliqueHeaderFields } from '../chain/clique.ts'
import { baseGasLimit, isLondonForkBlock } from '../chain/gasLimit.ts'
import { toBytes, toGenesisQuantity, toObject, toWord } from '../chain/genesisValues.ts'
import { presetPowDifficulty } from '../chain/headerValidation.ts'
import { keccakSealed } from '../chain/keccakPow.ts'
import { startBlock } from '../evm/fastBlockBuilder.ts'
import { createVm } from '../evm/vmFactory.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { JsonNumber, type JsonValue, parseJsonText } from '../primitives/jsonText.ts'
import { openState, type StateManager } from '../state/worldState.ts'
import { nextTurn } from './blockAssembler.ts'

export interface JsonTxSpec {
  gasLimit: bigint
  gasPrice: bigint
  to?: Uint8Array
  value: bigint
  data: Uint8Array
  secretKey: Uint8Array
}

export interface JsonBlockSpec {
  number?: bigint
  parentHash?: Uint8Array
  coinbase?: Uint8Array
  extraData?: Uint8Array
  transactions: JsonTxSpec[]
}

/** Keys lower-cased (Besu reads them case-insensitively), numbers as their text. */
function lowerKeys(v: JsonValue): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k.toLowerCase(), lowerKeys(x)]))
  if (Array.isArray(v)) return v.map(lowerKeys)
  if (v instanceof JsonNumber) return v.text
  return v
}

function txSpec(raw: unknown, field: string): JsonTxSpec {
  const t = toObject(raw, field)
  if (t.secretkey === undefined) throw new Error(`${field}.secretKey is missing`)
  return {
    gasLimit: toGenesisQuantity(t.gaslimit, `${field}.gasLimit`),
    gasPrice: toGenesisQuantity(t.gasprice, `${field}.gasPrice`),
    to: t.to === undefined || t.to === null ? undefined : toWord(t.to, `${field}.to`, 20),
    value: t.value === undefined ? 0n : toGenesisQuantity(t.value, `${field}.value`),
    data: t.data === undefined ? new Uint8Array(0) : toBytes(t.data, `${field}.data`),
    secretKey: toBytes(t.secretkey, `${field}.secretKey`, 32),
  }
}

/** Reads a JSON block file; errors name the field, or the line and column of a syntax error. */
export function parseJsonBlocks(text: string): JsonBlockSpec[] {
  const root = toObject(lowerKeys(parseJsonText(text)), 'file')
  if (!Array.isArray(root.blocks)) throw new Error('"blocks" must be an array')
  return root.blocks.map((raw, i) => {
    const field = `blocks[${i}]`
    const b = toObject(raw, field)
    const txs = b.transactions ?? []
    if (!Array.isArray(txs)) throw new Error(`${field}.transactions must be an array`)
    return {
      number: b.number === undefined ? undefined : toGenesisQuantity(b.number, `${field}.number`),
      parentHash: b.parenthash === undefined ? undefined : toBytes(b.parenthash, `${field}.parentHash`, 32),
      // Addresses as Besu's `Address.fromHexString` reads them: shorter hex is left-padded (`0x02`).
      coinbase: b.coinbase === undefined ? undefined : toWord(b.coinbase, `${field}.coinbase`, 20),
      extraData: b.extradata === undefined ? undefined : toBytes(b.extradata, `${field}.extraData`),
      transactions: txs.map((t, j) => txSpec(t, `${field}.transactions[${j}]`)),
    }
  })
}

/** The block `spec` names as parent: its parentHash, else number − 1, else the block after `previous`. */
async function jsonBlockParent(chain: Chain, spec: JsonBlockSpec, previous?: Block): Promise<Block> {
  if (spec.parentHash) {
    const parent = await chain.getBlockByHash(spec.parentHash)
    if (!parent) throw new Error(`Unable to locate block parent at ${bytesToHex(spec.parentHash)}`)
    return parent
  }
  const number = spec.number !== undefined ? spec.number - 1n : (previous?.header.number ?? 0n)
  if (number < 0n) throw new Error(`Invalid block number: ${number + 1n}`)
  if (previous && previous.header.number === number) return previous
  const parent = await chain.getBlockByNumber(number)
  if (!parent) throw new Error(`Unable to locate block parent at ${number}`)
  return parent
}

/**
 * Builds the block `spec` describes on `parent`, at `timestamp` (seconds); a clique block is sealed
 * with `cliqueKey` (the node key). Nothing is stored.
 */
async function buildJsonBlock(
  chain: Chain,
  parent: Block,
  spec: JsonBlockSpec,
  timestamp: bigint,
  cliqueKey?: Uint8Array,
): Promise<Block> {
  const common = chain.common.copy()
  const number = parent.header.number + 1n
  common.setHardforkBy({ blockNumber: number, timestamp })
  const consensus = common.consensusType()
  if (consensus !== 'pow' && (spec.coinbase || spec.extraData)) {
    const fields = [spec.coinbase && 'coinbase', spec.extraData && 'extraData'].filter(Boolean).join(', ')
    throw new Error(
      `Some fields (${fields}) are unsupported by the current consensus engine: ${common.consensusAlgorithm()}`,
    )
  }
  let clique: CliqueHeaderFields | undefined
  if (consensus === 'poa') {
    if (!cliqueKey) throw new Error('Unable to create block using current consensus engine: clique')
    clique = await cliqueHeaderFields(chain, common, parent.header, cliqueKey, timestamp)
    common.setHardforkBy({ blockNumber: number, timestamp: clique.timestamp })
  }
  const state = openState(chain.trieDb, common, parent.header.stateRoot, true)
  const vm = await createVm(common, state, chain)
  const isPow = consensus === 'pow'
  const fixed = isPow ? presetPowDifficulty(common, parent.header, timestamp) : undefined
  const builder = await startBlock(vm, {
    parentBlock: parent,
    headerData: {
      number,
      timestamp,
      gasLimit: baseGasLimit(common, parent.header.gasLimit, number),
      baseFeePerGas: producedBaseFee(
        parent.header,
        chain.baseFeeMarket,
        common.isActivatedEIP(1559),
        isLondonForkBlock(common, number),
      ),
      coinbase: spec.coinbase,
      extraData: spec.extraData,
      difficulty: isPow ? fixed : 0n,
      parentBeaconBlockRoot: common.isActivatedEIP(4788) ? new Uint8Array(32) : undefined,
      ...clique,
    },
    withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
    blockOpts: {
      putBlockIntoBlockchain: false,
      setHardfork: true,
      calcDifficultyFromHeader: isPow && fixed === undefined ? parent.header : undefined,
      cliqueSigner: clique ? cliqueKey : undefined,
    },
  })
  const nonces = new Map<string, bigint>()
  let invalid = 0
  let firstReason = ''
  for (const t of spec.transactions) {
    const tx = await signedTx(t, common, nonces, state)
    try {
      await builder.addTransaction(tx, { skipHardForkValidation: true })
    } catch (e) {
      invalid++
      firstReason ||= (e as Error).message
    }
  }
  if (invalid > 0)
    throw new Error(
      `Unable to create block.  ${invalid} transaction(s) were found to be invalid. First: ${firstReason}`,
    )
  const { block } = await builder.build()
  // Besu's JSON import mines its blocks with the chain's proof of work: ECIP-1049's can be.
  return isPow && hasKeccakSeal(common) ? keccakSealed(block, nextTurn) : block
}

/**
 * Builds each block of a JSON block file on its parent and imports it, in order; the timestamp is
 * the clock's, or one second after the parent when the clock is behind it. Calls `onImported` per block.
 */
export async function importJsonBlocks(
  chain: Chain,
  specs: JsonBlockSpec[],
  nowSeconds: () => bigint,
  onImported: (block: Block) => void,
  cliqueKey?: Uint8Array,
): Promise<void> {
  let previous: Block | undefined
  for (const spec of specs) {
    const parent = await jsonBlockParent(chain, spec, previous)
    const now = nowSeconds()
    const block = await buildJsonBlock(
      chain,
      parent,
      spec,
      now > parent.header.timestamp ? now : parent.header.timestamp + 1n,
      cliqueKey,
    )
    // Built here, so there is no seal to verify.
    await importBlock(chain, block, { setHead: true, skipPowValidation: true })
    onImported(block)
    previous = block
  }
}

/** A legacy transaction signed with `t.secretKey` as Besu signs it, its nonce the sender's next one in this block. */
async function signedTx(
  t: JsonTxSpec,
  common: Common,
  nonces: Map<string, bigint>,
  state: StateManager,
): Promise<LegacyTx> {
  const sender = new Address(privateToAddress(t.secretKey))
  const key = sender.toString()
  const nonce = nonces.get(key) ?? (await state.getAccount(sender))?.nonce ?? 0n
  nonces.set(key, nonce + 1n)
  const fields = { nonce, gasPrice: t.gasPrice, gasLimit: t.gasLimit, to: t.to, value: t.value, data: t.data }
  // Besu signs these without a chain id (v 27/28, no EIP-155), which every fork still accepts.
  const unprotected = common.copy()
  unprotected.setHardfork('chainstart')
  const { v, r, s } = createLegacyTx(fields, { common: unprotected }).sign(t.secretKey)
  return createLegacyTx({ ...fields, v, r, s }, { common })
}
