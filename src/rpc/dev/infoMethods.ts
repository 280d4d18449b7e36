/**
 * What Foundry and Hardhat ask a node about itself: `anvil_nodeInfo`, `anvil_metadata` /
 * `hardhat_metadata`, `anvil_setRpcUrl` (a forked chain's remote), and `eth_getAccountInfo` (balance, nonce and code in one call; forge probes it);
 * and the state as a whole: `anvil_dumpState` / `anvil_loadState` (see `producer/stateDump.ts`).
 */
import { Address } from '@ethereumjs/util'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod, type RpcMethod } from '../../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../../jsonrpc/errors.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import { decodeDump, dumpState, encodeDump, loadState } from '../../producer/stateDump.ts'
import { httpRemote } from '../../state/forkSource.ts'
import { writeForkRemote } from '../../storage/forkCache.ts'
import type { RpcContext } from '../context.ts'
import { requireBlock } from '../eth/resolveBlock.ts'
import { amount, devMethod } from './devMethod.ts'

export const infoMethods: RpcMethod<RpcContext>[] = []

/** Names one node run: Hardhat and Anvil tell a restarted node apart by it. */
const INSTANCE_ID = bytesToHex(crypto.getRandomValues(new Uint8Array(32)))

devMethod(infoMethods, { anvil: 'anvil_nodeInfo' }, [], ({ ctx, tools }) => {
  const head = ctx.chain.head
  return {
    currentBlockNumber: Number(head.header.number),
    currentBlockTimestamp: Number(head.header.timestamp),
    currentBlockHash: bytesToHex(head.hash()),
    hardFork: head.common.hardfork(),
    transactionOrder: 'fees',
    environment: {
      baseFee: toQuantity(tools.sealer.nextBlockBaseFee()),
      chainId: Number(ctx.settings.chainId),
      gasLimit: toQuantity(tools.sealer.gasLimit ?? head.header.gasLimit),
      gasPrice: toQuantity(ctx.pool.minGasPrice),
    },
    forkConfig: {
      forkUrl: ctx.settings.fork?.url ?? null,
      forkBlockNumber: ctx.settings.fork ? Number(ctx.settings.fork.blockNumber) : null,
      forkRetryBackoff: null,
    },
  }
})

/**
 * Anvil's switch of a forked chain to another endpoint of the remote chain (the same fork block);
 * a chain that is not forked ignores it, as Anvil does. The URL is kept in the database: a restart
 * without `--fork-url` reads from it (`--fork-url` given at the restart wins).
 */
devMethod(infoMethods, { anvil: 'anvil_setRpcUrl' }, [p.named('url', p.string)], ({ ctx }, [url]) => {
  if (!/^https?:\/\/[^\s/]+/.test(url))
    throw new InvalidParamsError(`invalid argument 0 (url): expected an http(s) URL, got ${JSON.stringify(url)}`)
  if (!ctx.settings.fork || !ctx.forkHistory) return
  ctx.forkHistory.useRemote(httpRemote(url))
  ctx.settings.fork.url = url
  writeForkRemote(ctx.chain.store, url)
})

/**
 * Anvil's chain id change: the new id is in force from the next block on, earlier blocks keep the
 * id they were sealed with (their transactions decode and replay under it; see chain/chainIds.ts).
 * `eth_chainId` follows; `net_version` follows where the network id is the chain id (not on the dev
 * network, whose network id is Besu's 2018).
 */
devMethod(infoMethods, { anvil: 'anvil_setChainId' }, [amount('chainId')], async ({ ctx, tools }, [chainId]) => {
  if (chainId === 0n || chainId > BigInt(Number.MAX_SAFE_INTEGER))
    throw new InvalidParamsError(`invalid argument 0 (chainId): expected 1 to 2^53-1, got ${chainId}`)
  await tools.setChainId(chainId)
  if (ctx.settings.networkId === ctx.settings.chainId) ctx.settings.networkId = chainId
  ctx.settings.chainId = chainId
})

devMethod(infoMethods, { anvil: 'anvil_getGenesisTime' }, [], ({ ctx }) => Number(ctx.chain.genesis.header.timestamp))

devMethod(infoMethods, { hardhat: 'hardhat_metadata', anvil: 'anvil_metadata' }, [], ({ ctx }) => {
  const head = ctx.chain.head
  return {
    clientVersion: ctx.settings.clientVersion,
    chainId: Number(ctx.settings.chainId),
    instanceId: INSTANCE_ID,
    latestBlockNumber: Number(head.header.number),
    latestBlockHash: bytesToHex(head.hash()),
    forkedNetwork: ctx.settings.fork
      ? {
          chainId: Number(ctx.settings.chainId),
          forkBlockNumber: Number(ctx.settings.fork.blockNumber),
          forkBlockHash: bytesToHex(ctx.chain.genesis.hash()),
        }
      : undefined,
  }
})

/** Balance, nonce and code of an account at a block, as Anvil answers them. */
export const getAccountInfo = defineMethod({
  name: 'eth_getAccountInfo',
  params: [p.address, p.block.optional('latest')],
  handler: async (ctx: RpcContext, [address, ref]) => {
    const block = await requireBlock(ctx, ref)
    const state = ctx.chain.stateAt(block)
    const a = new Address(address)
    const account = await state.getAccount(a)
    const code = account ? await state.getCode(a) : new Uint8Array(0)
    return {
      balance: toQuantity(account?.balance ?? 0n),
      nonce: toQuantity(account?.nonce ?? 0n),
      code: bytesToHex(code),
    }
  },
})

devMethod(infoMethods, { anvil: 'anvil_dumpState' }, [], ({ tools }) => encodeDump(dumpState(tools)))

devMethod(infoMethods, { anvil: 'anvil_loadState' }, [p.named('state', p.string)], async ({ tools }, [text]) => {
  let doc: unknown
  try {
    doc = decodeDump(text)
  } catch (e) {
    throw new InvalidParamsError(`invalid argument 0 (state): ${(e as Error).message}`)
  }
  try {
    await loadState(tools, doc)
  } catch (e) {
    throw new InvalidParamsError(`invalid argument 0 (state): ${(e as Error).message}`)
  }
  return true
})
