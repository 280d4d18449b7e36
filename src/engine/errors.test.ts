import { describe, expect, it } from '../runtime/testing.ts'
import { ENGINE_ERRORS, engineError, engineParamsError } from './errors.ts'

describe('engineError', () => {
  it('pins the codes and messages of execution-apis common.md', () => {
    expect(Object.values(ENGINE_ERRORS)).toEqual([
      [-38001, 'Unknown payload'],
      [-38002, 'Invalid forkchoice state'],
      [-38003, 'Invalid payload attributes'],
      [-38004, 'Too large request'],
      [-38005, 'Unsupported fork'],
      [-38006, 'Too deep reorg'],
    ])
  })

  it('keeps the spec message and puts the detail in data', () => {
    const e = engineError('unsupportedFork', 'timestamp 5 falls in prague')
    expect([e.code, e.message, e.data]).toEqual([-38005, 'Unsupported fork', 'timestamp 5 falls in prague'])
  })

  it("gives Amsterdam's fields Besu's -32602 messages, the reason in data", () => {
    const e = (f: Parameters<typeof engineParamsError>[0], d: string) => {
      const err = engineParamsError(f, d)
      return [err.code, err.message, err.data]
    }
    expect(e('slotNumber', 'Missing slot number field')).toEqual([
      -32602,
      'Invalid slot number params (missing or invalid)',
      'Missing slot number field',
    ])
    expect(e('blockAccessList', 'Missing block access list field')).toEqual([
      -32602,
      'Invalid block access list params (missing or invalid)',
      'Missing block access list field',
    ])
    expect(e('targetGasLimit', 'Missing target gas limit field')).toEqual([
      -32602,
      'Invalid target gas limit params',
      'Missing target gas limit field',
    ])
  })
})
