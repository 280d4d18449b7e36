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
  tooDeepReorg: [-38006, 'Too deep reorg'],
} as const satisfies Record<string, readonly [number, string]>

export type EngineErrorKind = keyof typeof ENGINE_ERRORS

/** An Engine API error of `kind`; the spec fixes the message, so any detail goes in `data` (as Besu does). */
export function engineError(kind: EngineErrorKind, detail?: string): RpcError {
  const [code, message] = ENGINE_ERRORS[kind]
  return new RpcError(code, message, detail)
}

/**
 * Besu's -32602 variants for the fields Amsterdam adds (its RpcErrorType entries): the message names
 * the field, the reason goes in `data` (`Missing slot number field`, `Invalid slotNumber`, ...).
 */
export const ENGINE_PARAMS_ERRORS = {
  blockAccessList: 'Invalid block access list params (missing or invalid)',
  slotNumber: 'Invalid slot number params (missing or invalid)',
  targetGasLimit: 'Invalid target gas limit params',
  custodyColumns: 'Invalid custody columns params',
} as const

/** A -32602 of Besu's for `field`, with the reason in `data` where Besu gives one. */
export function engineParamsError(field: keyof typeof ENGINE_PARAMS_ERRORS, detail?: string): RpcError {
  return new RpcError(-32602, ENGINE_PARAMS_ERRORS[field], detail)
}
