/** The Engine service behind a request; every engine method goes through here, which marks the consensus client alive. */
import { MethodNotEnabledError } from '../jsonrpc/errors.ts'
import type { RpcContext } from '../rpc/context.ts'
import type { EngineService } from './engineService.ts'

/** The request context of a node running the Engine API: the RPC services plus the EngineService. */
export type EngineContext = RpcContext & { engine?: EngineService }

/** The node's EngineService; -32604 when the node runs without the Engine API (`--engine-rpc-enabled`). */
export function engineOf(ctx: RpcContext): EngineService {
  const engine = (ctx as EngineContext).engine
  if (!engine) throw new MethodNotEnabledError()
  engine.touch()
  return engine
}
