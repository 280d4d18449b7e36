/** The TOML reader of Besu-style files: what it takes and how it names what it cannot read. */
import { describe, expect, it } from '../runtime/testing.ts'
import { parseToml } from './toml.ts'

describe('parseToml', () => {
  it('reads the keys, strings, numbers, booleans and arrays of a Besu config file', () => {
    const text = [
      '# a node',
      'data-path="/var/lib/besu" # inline comment',
      "genesis-file='C:\\genesis.json'",
      'rpc-http-api=["ETH","NET", # groups',
      '  "QBFT",',
      ']',
      'rpc-http-port = 8545',
      'min-gas-price=1_000_000_000_000_000_000_000',
      'rpc-http-enabled=true',
      '"host-allowlist" = ["*"]',
      'identity="tab\\there \\u00e9"',
      'target-gas-limit=0x1c9c380',
      '',
    ].join('\n')
    expect(Object.fromEntries(parseToml(text))).toEqual({
      'data-path': '/var/lib/besu',
      'genesis-file': 'C:\\genesis.json',
      'rpc-http-api': ['ETH', 'NET', 'QBFT'],
      'rpc-http-port': '8545',
      'min-gas-price': '1000000000000000000000',
      'rpc-http-enabled': true,
      'host-allowlist': ['*'],
      identity: 'tab\there é',
      'target-gas-limit': '0x1c9c380',
    })
    expect(parseToml('a=1\r\nb="x"\r\n').get('b')).toBe('x')
    expect(parseToml('\uFEFFrpc-http-port=8545\n').get('rpc-http-port')).toBe('8545')
  })

  it('names the line and column of what it cannot read', () => {
    const cases: [string, string][] = [
      ['[section]\na=1', 'tables are not Besu options at line 1, column 1'],
      ['a=1\nb.c=2', 'dotted keys are not Besu options at line 2, column 2'],
      ['a="open', 'unterminated string at line 1, column 8'],
      ['a=1\na=2', "duplicate key 'a' at line 2, column 1"],
      ['a=[1, 2', "expected ',' or ']' at line 1, column 8"],
      ['a=1 b=2', 'expected the end of the line at line 1, column 5'],
      ['a=', 'missing value at line 1, column 3'],
      ['a=1979-05-27', "unsupported value '1979-05-27' at line 1, column 3"],
      ['a="""x"""', 'multi-line strings are not read at line 1, column 3'],
      ['a="\\q"', 'bad escape \\q at line 1, column 4'],
      ['= 1', 'expected a key at line 1, column 1'],
      ['a 1', "expected '=' at line 1, column 3"],
    ]
    for (const [text, message] of cases) expect(() => parseToml(text)).toThrow(message)
  })
})
