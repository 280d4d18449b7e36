/** `basalt run`'s --graphql-http-* options, parsed as the executable parses them. */

import cac from 'cac'
import { describe, expect, it } from '../runtime/testing.ts'
import { parseRunOptions, registerRunCommand } from './runCommand.ts'

function graphqlConfig(args: string[]) {
  const cli = cac('basalt')
  registerRunCommand(cli)
  const { options } = cli.parse(['bun', 'basalt', 'run', ...args], { run: false })
  return parseRunOptions(options)
}

describe('--graphql-http-*', () => {
  it('is off by default, on 127.0.0.1:8547 with no CORS origins once enabled', () => {
    expect(graphqlConfig([]).graphql).toEqual({ isEnabled: false, host: '127.0.0.1', port: 8547, corsOrigins: [] })
    expect(graphqlConfig(['--graphql-http-enabled']).graphql).toEqual({
      isEnabled: true,
      host: '127.0.0.1',
      port: 8547,
      corsOrigins: [],
    })
  })

  it('takes a host, a port and a comma-separated list of CORS origins', () => {
    const config = graphqlConfig([
      '--graphql-http-enabled',
      '--graphql-http-host',
      '0.0.0.0',
      '--graphql-http-port',
      '9547',
      '--graphql-http-cors-origins',
      'http://a.example,http://b.example',
    ])
    expect(config.graphql).toEqual({
      isEnabled: true,
      host: '0.0.0.0',
      port: 9547,
      corsOrigins: ['http://a.example', 'http://b.example'],
    })
  })

  it('refuses a port that is not one', () => {
    expect(() => graphqlConfig(['--graphql-http-port', '70000'])).toThrow('--graphql-http-port')
  })
})
