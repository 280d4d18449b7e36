/**
 * Help for `basalt <command> <sub> --help`. cac knows only one-word commands (`rlp <subcommand>`),
 * so its help would show the group's usage and every option of every subcommand. Each group
 * registers here what each of its subcommands does and which options it reads; the help callback
 * then narrows cac's sections to that subcommand. Also puts the full client version at the top, as
 * `--version` prints it.
 */
import type { CAC, Command } from 'cac'
import { clientVersion } from '../primitives/version.ts'

/** What one subcommand does and the long names of the options it reads. */
export interface SubcommandInfo {
  summary: string
  options: readonly string[]
}

const bySubcommand = new WeakMap<Command, Record<string, SubcommandInfo>>()

/** Declares the subcommands of a group command (`rlp <subcommand>`), for their own help. */
export function describeSubcommands(command: Command, subcommands: Record<string, SubcommandInfo>): void {
  bySubcommand.set(command, subcommands)
}

interface Section {
  title?: string
  body: string
}

/** Installs `--help` on `cli` with the per-subcommand narrowing and the full version line. */
export function installHelp(cli: CAC): void {
  cli.help((sections: Section[]) => {
    const out = sections.map((s, i) => (i === 0 && !s.title ? { body: clientVersion() } : s))
    const command = cli.matchedCommand
    const sub = typeof cli.args[0] === 'string' ? cli.args[0] : undefined
    const info = command && sub ? bySubcommand.get(command)?.[sub] : undefined
    if (!command || !sub || !info) return out
    return out.map((s) => narrowSection(s, `${command.name} ${sub}`, info))
  })
}

function narrowSection(section: Section, name: string, info: SubcommandInfo): Section {
  if (section.title === 'Usage') return { title: 'Usage', body: `  $ basalt ${name} [options]\n\n  ${info.summary}` }
  if (section.title !== 'Options') return section
  const keep = new Set([...info.options, 'help'])
  const lines = section.body.split('\n').filter((line) => {
    const long = /--([a-z0-9-]+)/.exec(line)
    return long !== null && keep.has(long[1])
  })
  return { title: 'Options', body: lines.join('\n') }
}
