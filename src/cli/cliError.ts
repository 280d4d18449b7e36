/** An error the user caused (bad option, unreadable file); printed as one line, never a stack. */
export class CliError extends Error {
  readonly exitCode: number

  constructor(message: string, exitCode = 2) {
    super(message)
    this.exitCode = exitCode
    this.name = 'CliError'
  }
}

/** Exit code of an error in the user's input files (unreadable, malformed), as Besu's subcommands use. */
export const INPUT_ERROR = 1

/** A CliError for bad input (exit code 1) rather than bad usage (exit code 2). */
export function inputError(message: string): CliError {
  return new CliError(message, INPUT_ERROR)
}
