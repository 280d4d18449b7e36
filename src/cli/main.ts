#!/usr/bin/env bun
/**
 * Entry point of the `basalt` executable: parses the command line with cac and hands each command's
 * validated options to its module. Owns argument errors (one line, exit code 2); owns nothing else.
 */
import { cac } from 'cac'
import { LIBRARY_PATCHES } from '../evm/libraryPatches.ts'
import { clientVersion, VERSION } from '../primitives/version.ts'
import { installModuleHooks } from '../runtime/moduleHooks.ts'
import { protectOptionValues } from './argv.ts'
import { registerBlocksCommand } from './blocksCommand.ts'
import { CliError } from './cliError.ts'
import { expandOptionSources, runOptionNames } from './configFile.ts'
import { registerOperatorCommand } from './operatorCommand.ts'
import { registerPublicKeyCommand } from './publicKeyCommand.ts'
import { registerRlpCommand } from './rlpCommand.ts'
import { registerRunCommand } from './runCommand.ts'
import { installHelp } from './subcommandHelp.ts'

export function buildCli() {
  const cli = cac('basalt')
  registerRunCommand(cli)
  registerBlocksCommand(cli)
  registerOperatorCommand(cli)
  registerRlpCommand(cli)
  registerPublicKeyCommand(cli)
  installHelp(cli)
  cli.version(VERSION)
  // main prints the full client version itself, wherever `--version` stands.
  cli.showVersionOnExit = false
  return cli
}

/** Runs the command line `argv` (node's shape: runtime, script, arguments). cli/launch.ts calls it in the executable. */
export async function main(argv: string[]): Promise<void> {
  const cli = buildCli()
  try {
    const args = expandOptionSources(argv.slice(2), runOptionNames(cli))
    cli.parse([...argv.slice(0, 2), ...protectOptionValues(cli, args)], { run: false })
    // `--version` wins wherever it stands, as in Besu: `basalt run --version` must not start a node.
    if (cli.options.version) {
      process.stdout.write(`${clientVersion()}\n`)
      return
    }
    // cac has printed the help (of the command, or of its subcommand) already.
    if (cli.options.help) return
    if (!cli.matchedCommand && cli.args.length > 0) throw new CliError(`Unknown command: ${cli.args[0]}`)
    if (!cli.matchedCommand) {
      cli.outputHelp()
      return
    }
    // The GraphQL schema is a text import, which Node can load only through a hook; there too the
    // libraries are patched as the executable's build patches them.
    await installModuleHooks(LIBRARY_PATCHES)
    await cli.runMatchedCommand()
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    const isUsage = err instanceof CliError || (err as { name?: string })?.name === 'CACError'
    process.stderr.write(`basalt: ${message}\n`)
    process.exit(err instanceof CliError ? err.exitCode : isUsage ? 2 : 1)
  }
}

// Not a top-level await: the executable is compiled to bytecode, which needs a CommonJS bundle.
if (import.meta.main) void main(process.argv)
