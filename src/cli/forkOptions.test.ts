/** `basalt run`'s --fork-* options, parsed as the executable parses them. */

import cac from 'cac'
import { describe, expect, it } from '../runtime/testing.ts'
import { parseRunOptions, registerRunCommand } from './runCommand.ts'

function forkConfig(args: string[]) {
  const cli = cac('basalt')
  registerRunCommand(cli)
  const { options } = cli.parse(['bun', 'basalt', 'run', ...args], { run: false })
  return parseRunOptions(options).fork
}

describe('--fork-*', () => {
  it('is off without --fork-url', () => {
    expect(forkConfig([])).toBeUndefined()
  })

  it('takes a URL, a block number (decimal or hex) and where to cache, the database by default', () => {
    expect(forkConfig(['--fork-url', 'http://127.0.0.1:8545'])).toEqual({
      url: 'http://127.0.0.1:8545',
      blockNumber: undefined,
      cache: 'db',
    })
    const config = forkConfig([
      '--fork-url',
      'https://rpc.example/x',
      '--fork-block-number',
      '1234',
      '--fork-cache',
      'off',
    ])
    expect(config).toEqual({ url: 'https://rpc.example/x', blockNumber: 1234n, cache: 'off' })
    expect(forkConfig(['--fork-url', 'http://127.0.0.1:1', '--fork-block-number', '0x10'])?.blockNumber).toBe(16n)
  })

  it('refuses a URL that is not http(s), a bad block number, a block without a URL, and a genesis file', () => {
    expect(() => forkConfig(['--fork-url', 'ws://127.0.0.1:8546'])).toThrow("--fork-url: 'ws://127.0.0.1:8546'")
    expect(() => forkConfig(['--fork-url', 'http://127.0.0.1:1', '--fork-block-number', '-1'])).toThrow(
      '--fork-block-number',
    )
    expect(() => forkConfig(['--fork-block-number', '5'])).toThrow('--fork-block-number needs --fork-url')
    expect(() => forkConfig(['--fork-url', 'http://127.0.0.1:1', '--genesis-file', 'g.json'])).toThrow('--genesis-file')
  })
})
