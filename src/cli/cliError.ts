/** An error the user caused (bad option, unreadable file); printed as one line, never a stack. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message)
    this.name = 'CliError'
  }
}
