/**
 * The Engine API's own JSON-RPC errors (execution-apis src/engine/common.md#errors), with the codes
 * and messages consensus clients match on. Parameter-shape failures use the shared -32602.
 */
import { RpcError } from '../jsonrpc/errors.ts'

export const ENGINE_ERRORS = {
  unknownPayload: [-38001, 'Unknown payload'],
  invalidForkchoiceState: [-38002, 'Invalid forkchoice state'],
  invalidPayloadAttributes: [-38003, 'Invalid payload attributes'],
  tooLargeRequest: [-38004, 'Too large request'],
  unsupportedFork: [-38005, 'Unsupported fork'],
} as const satisfies Record<string, readonly [number, string]>

export type EngineErrorKind = keyof typeof ENGINE_ERRORS

/** An Engine API error of `kind`; the spec fixes the message, so any detail goes in `data` (as Besu does). */
export function engineError(kind: EngineErrorKind, detail?: string): RpcError {
  const [code, message] = ENGINE_ERRORS[kind]
  return new RpcError(code, message, detail)
}
