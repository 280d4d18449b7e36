/**
 * The node's fork configuration and what it serves: eth_config (EIP-7910), eth_capabilities and
 * eth_baseFee. Spec: execution-apis src/eth/client.yaml, src/eth/fee_market.yaml
 */

import type { Common } from '@ethereumjs/common'
import { Mainnet } from '@ethereumjs/common'
import { hasChainId } from '../../chain/genesis.ts'
import { hasNoSystemCalls } from '../../evm/poaSystemCalls.ts'
import { SYSTEM_CONTRACTS } from '../../evm/systemContracts.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { bytesToHex, type Hex, padHex, toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'

/** EIP-7910 precompile names, with the fork that brings each. */
const PRECOMPILES: [name: string, address: number, fork: string][] = [
  ['ECREC', 0x01, 'chainstart'],
  ['SHA256', 0x02, 'chainstart'],
  ['RIPEMD160', 0x03, 'chainstart'],
  ['ID', 0x04, 'chainstart'],
  ['MODEXP', 0x05, 'byzantium'],
  ['BN254_ADD', 0x06, 'byzantium'],
  ['BN254_MUL', 0x07, 'byzantium'],
  ['BN254_PAIRING', 0x08, 'byzantium'],
  ['BLAKE2F', 0x09, 'istanbul'],
  ['KZG_POINT_EVALUATION', 0x0a, 'cancun'],
  ['BLS12_G1ADD', 0x0b, 'prague'],
  ['BLS12_G1MSM', 0x0c, 'prague'],
  ['BLS12_G2ADD', 0x0d, 'prague'],
  ['BLS12_G2MSM', 0x0e, 'prague'],
  ['BLS12_PAIRING_CHECK', 0x0f, 'prague'],
  ['BLS12_MAP_FP_TO_G1', 0x10, 'prague'],
  ['BLS12_MAP_FP2_TO_G2', 0x11, 'prague'],
  ['P256VERIFY', 0x100, 'osaka'],
]

/** EIP-7910 system contract names, by the EIP that deploys each. */
const SYSTEM_CONTRACT_NAMES: Record<string, [name: string, eip: number, param?: string]> = {
  BEACON_ROOTS: ['BEACON_ROOTS_ADDRESS', 4788],
  HISTORY_STORAGE: ['HISTORY_STORAGE_ADDRESS', 2935],
  WITHDRAWAL_REQUESTS: ['WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS', 7002, 'withdrawalRequestPredeployAddress'],
  CONSOLIDATION_REQUESTS: ['CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS', 7251, 'consolidationRequestPredeployAddress'],
}

/** A copy of the head header's fork rules (which carry the block parameters) set to `fork`. */
function commonAt(ctx: RpcContext, fork: string): Common {
  const c = ctx.chain.head.header.common.copy()
  c.setHardfork(fork)
  return c
}

function forkConfig(ctx: RpcContext, fork: string): Record<string, unknown> {
  const c = commonAt(ctx, fork)
  const precompiles: Record<string, Hex> = {}
  for (const [name, address, since] of PRECOMPILES) {
    if (c.gteHardfork(since)) precompiles[name] = padHex(`0x${address.toString(16)}`, 20)
  }
  const systemContracts: Record<string, Hex> = {}
  // A PoA chain without the request contract addresses calls none (Besu's pre-execution processor
  // and request coordinator there name no contract).
  const isCalling = !hasNoSystemCalls(c)
  for (const sc of isCalling ? SYSTEM_CONTRACTS : []) {
    const [name, eip, param] = SYSTEM_CONTRACT_NAMES[sc.name] ?? []
    if (!name || !c.isActivatedEIP(eip)) continue
    // The request contracts may sit elsewhere (genesis withdrawal/consolidationRequestContractAddress).
    const configured = param && (c as unknown as { _paramsCache: Record<string, unknown> })._paramsCache[param]
    systemContracts[name] = configured ? padHex(toQuantity(BigInt(configured as string)), 20) : (sc.address as Hex)
  }
  if (isCalling && c.isActivatedEIP(6110)) {
    const deposit = (c as unknown as { _chainParams: { depositContractAddress?: string } })._chainParams
      .depositContractAddress
    systemContracts.DEPOSIT_CONTRACT_ADDRESS = (deposit ?? Mainnet.depositContractAddress!).toLowerCase() as Hex
  }
  let blobSchedule: Record<string, number> | null = null
  if (c.isActivatedEIP(4844)) {
    const s = c.getBlobGasSchedule()
    const perBlob = c.param('blobGasPerBlob')
    blobSchedule = {
      target: Number(s.targetBlobGasPerBlock / perBlob),
      max: Number(s.maxBlobGasPerBlock / perBlob),
      baseFeeUpdateFraction: Number(s.blobGasPriceUpdateFraction),
    }
  }
  return {
    activationTime: Number(c.hardforkTimestamp(fork) ?? 0n),
    blobSchedule,
    // null on a chain whose genesis names none, as Besu's eth_config (and eth_chainId) answer there.
    chainId: hasChainId(ctx.chain.common) ? toQuantity(c.chainId()) : null,
    forkId: c.forkHash(fork, ctx.chain.genesis.hash()),
    precompiles,
    systemContracts,
  }
}

/** Fork names scheduled by timestamp after `fork`, in order. */
function laterTimedForks(c: Common, fork: string): string[] {
  const forks = c.hardforks()
  const i = forks.findIndex((f) => f.name === fork)
  const out: string[] = []
  for (const f of forks.slice(i + 1)) {
    const t = f.timestamp === undefined || f.timestamp === null ? undefined : BigInt(f.timestamp)
    if (t !== undefined && t > (c.hardforkTimestamp(fork) ?? 0n) && !out.includes(f.name)) out.push(f.name)
  }
  return out
}

/** The current, next and last fork configuration (EIP-7910). Spec: execution-apis src/eth/client.yaml */
export const config = defineMethod({
  name: 'eth_config',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => {
    const current = ctx.chain.commonForNextBlock().hardfork()
    const later = laterTimedForks(ctx.chain.common, current)
    return {
      current: forkConfig(ctx, current),
      next: later.length > 0 ? forkConfig(ctx, later[0]) : null,
      last: later.length > 0 ? forkConfig(ctx, later[later.length - 1]) : null,
    }
  },
})

/** What history the node serves: an archive node keeps everything from genesis. Spec: execution-apis src/eth/client.yaml */
export const capabilities = defineMethod({
  name: 'eth_capabilities',
  params: [],
  handler: (ctx: RpcContext) => {
    const all = { disabled: false, oldestBlock: '0x0' }
    return {
      head: { number: toQuantity(ctx.chain.head.header.number), hash: bytesToHex(ctx.chain.head.hash()) },
      state: all,
      tx: all,
      logs: all,
      receipts: all,
      blocks: all,
      stateproofs: all,
    }
  },
})

/** The base fee of the next block. Spec: execution-apis src/eth/fee_market.yaml */
export const baseFee = defineMethod({
  name: 'eth_baseFee',
  params: [],
  handler: (ctx: RpcContext) => {
    const fee = ctx.chain.pendingBaseFee()
    return fee === undefined ? null : toQuantity(fee)
  },
})

export const configMethods = [config, capabilities, baseFee]
