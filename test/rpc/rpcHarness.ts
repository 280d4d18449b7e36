/**
 * RPC handlers in process for unit tests: an `RpcContext` over the tracing test chain (its pool and
 * sealer), and `call` that runs one method by its definition with raw JSON params, as the
 * dispatcher would. Errors come back as the RpcError the method threw.
 */
import { tmpdir } from 'node:os'
import { devAccounts } from '../../src/chain/devAccounts.ts'
import type { RpcMethod } from '../../src/jsonrpc/defineMethod.ts'
import type { RpcContext } from '../../src/rpc/context.ts'
import { FilterManager } from '../../src/rpc/eth/filterManager.ts'
import { afterAll, beforeAll } from '../../src/runtime/testing.ts'
import { type TracingChain, tracingChain } from '../tracing/tracingChain.ts'

export function rpcContext(t: TracingChain, filesDir = tmpdir()): RpcContext {
  const { chain, pool, sealer } = t
  return {
    chain,
    pool,
    sealer,
    filters: new FilterManager(chain, pool),
    settings: {
      chainId: chain.common.chainId(),
      networkId: 2018n,
      clientVersion: 'basalt/test',
      coinbase: new Uint8Array(20),
      gasPriceBlocks: 100,
      gasPricePercentile: 50,
      gasPriceMax: 500_000_000_000n,
      rpcGasCap: 0n,
      rpcEvmTimeoutMs: 5000,
      enabledHttpApis: [],
      enabledWsApis: [],
      devAccounts: devAccounts(),
      isDevAccountsUnlocked: false,
      ports: {},
      filesDir,
    },
    apis: [],
  }
}

/** Runs `method` with JSON params; resolves to its JSON result (bigints and bytes already encoded). */
export async function call<T = any>(
  ctx: RpcContext,
  method: RpcMethod<RpcContext>,
  params: unknown[] = [],
): Promise<T> {
  return JSON.parse(JSON.stringify(await method.call(ctx, params))) as T
}

/** A tracing chain and its RPC context for one test file: opened before its tests, closed after them. */
export function rpcChainForTests(): { readonly t: TracingChain; readonly ctx: RpcContext } {
  const shared = {} as { t: TracingChain; ctx: RpcContext }
  beforeAll(async () => {
    shared.t = await tracingChain()
    shared.ctx = rpcContext(shared.t)
  })
  afterAll(() => {
    shared.ctx.filters.stop()
    shared.t.close()
  })
  return shared
}
