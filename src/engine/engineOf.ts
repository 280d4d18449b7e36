/** The Engine service behind a request; every engine method goes through here, which marks the consensus client alive. */
import { MethodNotEnabledError } from '../jsonrpc/errors.ts'
import type { RpcContext } from '../rpc/context.ts'
import type { EngineService } from './engineService.ts'

/** The node's EngineService; -32604 when the node runs without the Engine API (`--engine-rpc-enabled`). */
export function engineOf(ctx: RpcContext): EngineService {
  if (!ctx.engine) throw new MethodNotEnabledError()
  ctx.engine.touch()
  return ctx.engine
}
