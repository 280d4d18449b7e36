import { describe, expect, it } from '../runtime/testing.ts'
import {
  BESU_ERRORS,
  besuError,
  ExecutionRevertedError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotEnabledError,
  MethodNotFoundError,
  ParseError,
} from './errors.ts'

describe('error classes', () => {
  it('carry the JSON-RPC codes', () => {
    expect([
      new ParseError().code,
      new InvalidRequestError().code,
      new MethodNotFoundError().code,
      new InvalidParamsError().code,
      new InternalError().code,
      new MethodNotEnabledError().code,
      new ExecutionRevertedError('x', '0x').code,
    ]).toEqual([-32700, -32600, -32601, -32602, -32603, -32604, 3])
  })
})

describe('BESU_ERRORS', () => {
  it('pins the codes of the transaction validation failures to Besu', () => {
    const codes = Object.fromEntries(Object.entries(BESU_ERRORS).map(([k, [code]]) => [k, code]))
    expect(codes).toMatchObject({
      nonceTooLow: -32001,
      invalidSignature: -32002,
      intrinsicGasExceedsLimit: -32003,
      upfrontCostExceedsBalance: -32004,
      exceedsBlockGasLimit: -32005,
      nonceTooHigh: -32006,
      gasPriceTooLow: -32009,
      wrongChainId: -32000,
      knownTransaction: -32000,
      replacementUnderpriced: -32000,
      unknownBlock: -39001,
      prunedHistoryUnavailable: 4444,
      blockAccessListBeforeAmsterdam: 4445,
      invalidTransactionType: -32602,
    })
  })

  it('builds an error with the table message unless a precise one is given', () => {
    expect(besuError('knownTransaction').message).toBe('Known transaction')
    expect(besuError('nonceTooLow', 'Nonce too low: 1 < 2').message).toBe('Nonce too low: 1 < 2')
  })
})
