/** Chain identity and node status. Spec: execution-apis src/eth/client.yaml */
import { hasChainId } from '../../chain/genesis.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'

/** The chain id; `null` on a chain whose genesis names none, as Besu answers there. */
export const chainId = defineMethod({
  name: 'eth_chainId',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => (hasChainId(ctx.chain.common) ? toQuantity(ctx.settings.chainId) : null),
})

export const blockNumber = defineMethod({
  name: 'eth_blockNumber',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => toQuantity(ctx.chain.head.header.number),
})

/**
 * The progress of a sync from peers, or false when none runs (a dev chain, or an Engine-driven node
 * with all its blocks, is never syncing).
 */
export const syncing = defineMethod({
  name: 'eth_syncing',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => {
    const s = ctx.network?.syncStatus()
    if (!s) return false
    return {
      startingBlock: toQuantity(s.startingBlock),
      currentBlock: toQuantity(s.currentBlock),
      highestBlock: toQuantity(s.highestBlock),
    }
  },
})

export const mining = defineMethod({
  name: 'eth_mining',
  besu: { kinds: [] },
  params: [],
  // Whether this node makes blocks on its own (the dev or clique sealer started by --miner-enabled,
  // a BFT validator), as Besu's miningCoordinator.isMining(); a node that only follows, or waits for
  // the Engine API, is not mining.
  handler: (ctx: RpcContext) => (ctx.sealer?.isMining ?? false) || (ctx.validator?.isRunning ?? false),
})

export const coinbase = defineMethod({
  name: 'eth_coinbase',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => bytesToHex(ctx.settings.coinbase),
})

export const hashrate = defineMethod({
  name: 'eth_hashrate',
  besu: { kinds: [] },
  params: [],
  handler: () => '0x0',
})

/** Besu holds no keys: `[]`, unless the dev accounts were unlocked explicitly. */
export const accounts = defineMethod({
  name: 'eth_accounts',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) =>
    ctx.settings.isDevAccountsUnlocked ? ctx.settings.devAccounts.map((a) => a.address) : [],
})

export const protocolVersion = defineMethod({
  name: 'eth_protocolVersion',
  besu: { kinds: [] },
  params: [],
  handler: () => '0x44',
})

export const chainMethods = [chainId, blockNumber, syncing, mining, coinbase, hashrate, accounts, protocolVersion]
