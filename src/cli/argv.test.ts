import { describe, expect, it } from '../runtime/testing.ts'
import { protectOptionValues } from './argv.ts'
import { buildCli } from './main.ts'

function refusal(argv: string[]): string {
  try {
    protectOptionValues(buildCli(), argv)
  } catch (e) {
    return (e as Error).message
  }
  return 'accepted'
}

describe('protectOptionValues', () => {
  it('suggests the nearest option for a mistyped one and points at --help', () => {
    expect(refusal(['run', '--rpc-http-prot', '8545'])).toBe(
      'Unknown option --rpc-http-prot (did you mean --rpc-http-port?); basalt run --help lists the options',
    )
    expect(refusal(['run', '--data-pth=x'])).toContain('did you mean --data-path?')
  })

  it('suggests nothing when no option is close', () => {
    expect(refusal(['blocks', 'import', '--frobnicate'])).toBe(
      'Unknown option --frobnicate; basalt blocks --help lists the options',
    )
  })

  it('accepts known options and keeps their values as typed', () => {
    expect(refusal(['run', '--rpc-http-port', '8545'])).toBe('accepted')
  })
})
