import { describe, expect, it } from '../runtime/testing.ts'
import { CliError } from './cliError.ts'
import { decodeValidators, encodeValidators, parseRlpOptions } from './rlpCommand.ts'

const VALIDATORS = ['be068f726a13c8d46c44be6ce9d275600e1735a4', '5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193']
const IBFT_VECTOR =
  '0xf853a00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193808400000000c0'
const QBFT_VECTOR =
  '0xf84fa00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193c080c0'
const DECODED = '[0xbe068f726a13c8d46c44be6ce9d275600e1735a4, 0x5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193]'

function expectCliError(fn: () => unknown, message: string, exitCode: number): void {
  let error: unknown
  try {
    fn()
  } catch (err) {
    error = err
  }
  expect(error).toBeInstanceOf(CliError)
  expect((error as CliError).message).toContain(message)
  expect((error as CliError).exitCode).toBe(exitCode)
}

describe('parseRlpOptions', () => {
  it('defaults to IBFT_EXTRA_DATA, standard input and standard output', () => {
    expect(parseRlpOptions('encode', {})).toEqual({
      subcommand: 'encode',
      kind: 'ibft2',
      from: undefined,
      to: undefined,
    })
  })

  it('reads --type in any case and the file options', () => {
    expect(parseRlpOptions('decode', { type: 'qbft_extra_data', from: 'a', to: 'b' })).toEqual({
      subcommand: 'decode',
      kind: 'qbft',
      from: 'a',
      to: 'b',
    })
  })

  it('names an unknown subcommand and an unknown type', () => {
    expectCliError(() => parseRlpOptions('hash', {}), 'Unknown rlp subcommand: hash (expected encode, decode)', 2)
    expectCliError(() => parseRlpOptions('encode', { type: 'CLIQUE' }), "--type: 'CLIQUE'", 2)
  })
})

describe('encodeValidators', () => {
  it('matches the IBFT 2.0 and QBFT reference vectors', () => {
    expect(encodeValidators(JSON.stringify(VALIDATORS), 'ibft2')).toBe(IBFT_VECTOR)
    expect(encodeValidators(JSON.stringify(VALIDATORS), 'qbft')).toBe(QBFT_VECTOR)
  })

  it('accepts addresses with 0x, in upper case, over several lines', () => {
    const json = `[\n  "0x${VALIDATORS[0].toUpperCase()}",\n  "${VALIDATORS[1]}"\n]\n`
    expect(encodeValidators(json, 'ibft2')).toBe(IBFT_VECTOR)
  })

  it('encodes an empty validator list', () => {
    expect(encodeValidators('[]', 'qbft')).toBe(`0xe5a0${'00'.repeat(32)}c0c080c0`)
  })

  it('refuses empty input, text that is not JSON and JSON that is not an array', () => {
    expectCliError(() => encodeValidators(' \n', 'ibft2'), 'An error occurred while trying to read the JSON data', 1)
    expectCliError(
      () => encodeValidators('[', 'ibft2'),
      'Unable to load the JSON data. Please check JSON input format',
      1,
    )
    expectCliError(
      () => encodeValidators('{"a": 1}', 'ibft2'),
      'Unable to map the JSON data with selected type: expected a JSON array of validator addresses',
      1,
    )
  })

  it('refuses an address that is short, not hex or not a string', () => {
    for (const bad of ['"0x1234"', `"${'g'.repeat(40)}"`, '42', `"0x${VALIDATORS[0]}00"`]) {
      expectCliError(
        () => encodeValidators(`["${VALIDATORS[0]}", ${bad}]`, 'qbft'),
        `validator address at index 1 is ${bad}, expected 40 hex digits`,
        1,
      )
    }
  })
})

describe('decodeValidators', () => {
  it('prints the validators of the reference vectors as Besu does', () => {
    expect(decodeValidators(IBFT_VECTOR, 'ibft2')).toBe(DECODED)
    expect(decodeValidators(`${QBFT_VECTOR.slice(2)}\n`, 'qbft')).toBe(DECODED)
  })

  it('reads only the first line', () => {
    expect(decodeValidators(`${IBFT_VECTOR}\nignored`, 'ibft2')).toBe(DECODED)
  })

  it('refuses empty input, text that is not hex, and an extraData of the other layout', () => {
    expectCliError(() => decodeValidators('', 'ibft2'), 'An error occurred while trying to read the input data', 1)
    expectCliError(() => decodeValidators('0xzz', 'ibft2'), 'not hex data', 1)
    expectCliError(() => decodeValidators(IBFT_VECTOR, 'qbft'), 'Invalid QBFT extraData', 1)
  })
})
