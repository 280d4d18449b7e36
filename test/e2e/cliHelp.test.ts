/**
 * Help and usage errors of the executable: every subcommand answers `--help` with its own usage
 * and options (exit 0), the help names the version `--version` prints, and a mistyped option
 * suggests the nearest one.
 */
import { describe, expect, it } from 'bun:test'
import { BASALT_BIN } from './harness.ts'

async function run(args: string[]) {
  const proc = Bun.spawn([BASALT_BIN, ...args], { stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
  const code = await proc.exited
  clearTimeout(timer)
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
  ])
  return { code, stdout, stderr }
}

const SUBCOMMANDS: [string[], string, string][] = [
  [['operator', 'generate-blockchain-config'], '--config-file', '--data-path'],
  [['rlp', 'encode'], '--type', '--data-path'],
  [['rlp', 'decode'], '--from', '--data-path'],
  [['public-key', 'export'], '--ec-curve', '--from'],
  [['public-key', 'export-address'], '--node-private-key-file', '--type'],
  [['blocks', 'import'], '--skip-pow-validation-enabled', '--to'],
  [['blocks', 'export'], '--to', '--skip-pow-validation-enabled'],
]

describe('basalt <command> <subcommand> --help', () => {
  it.each(SUBCOMMANDS)('%p prints its own usage and options and exits 0', async (words, own, foreign) => {
    const { code, stdout, stderr } = await run([...words, '--help'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain(`$ basalt ${words.join(' ')} [options]`)
    expect(stdout).toContain(own)
    expect(stdout).not.toContain(`${foreign} `)
    expect(stdout).toContain('--help')
  })

  it('heads the help with the version --version prints', async () => {
    const version = (await run(['--version'])).stdout.trim()
    for (const args of [['--help'], ['run', '--help'], ['rlp', 'encode', '--help']]) {
      expect((await run(args)).stdout.split('\n')[0]).toBe(version)
    }
  })
})

describe('a mistyped option', () => {
  it('is refused with the nearest option and a pointer to --help (exit 2)', async () => {
    const { code, stderr } = await run(['run', '--rpc-http-prot', '0'])
    expect(code).toBe(2)
    expect(stderr.trim()).toBe(
      'basalt: Unknown option --rpc-http-prot (did you mean --rpc-http-port?); basalt run --help lists the options',
    )
  })
})
