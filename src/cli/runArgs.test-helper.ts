/** For the option tests: `basalt run ARGS` parsed as the executable parses them, into a NodeConfig. */
import cac from 'cac'
import { protectOptionValues } from './argv.ts'
import { parseRunOptions, registerRunCommand } from './runCommand.ts'

export function runConfig(args: string[]) {
  const cli = cac('basalt')
  registerRunCommand(cli)
  const { options } = cli.parse(['bun', 'basalt', ...protectOptionValues(cli, ['run', ...args])], { run: false })
  return parseRunOptions(options)
}
