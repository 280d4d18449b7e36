import { describe, expect, it } from '../runtime/testing.ts'
import { ENGINE_ERRORS, engineError } from './errors.ts'

describe('engineError', () => {
  it('pins the codes and messages of execution-apis common.md', () => {
    expect(Object.values(ENGINE_ERRORS)).toEqual([
      [-38001, 'Unknown payload'],
      [-38002, 'Invalid forkchoice state'],
      [-38003, 'Invalid payload attributes'],
      [-38004, 'Too large request'],
      [-38005, 'Unsupported fork'],
    ])
  })

  it('keeps the spec message and puts the detail in data', () => {
    const e = engineError('unsupportedFork', 'timestamp 5 falls in prague')
    expect([e.code, e.message, e.data]).toEqual([-38005, 'Unsupported fork', 'timestamp 5 falls in prague'])
  })
})
