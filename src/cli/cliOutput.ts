/** Where subcommands write their answer: standard output with a newline, or a file as is. */
import fs from 'node:fs'
import { inputError } from './cliError.ts'

export function writeOutput(text: string, file: string | undefined): void {
  if (file === undefined) {
    process.stdout.write(`${text}\n`)
    return
  }
  try {
    fs.writeFileSync(file, text)
  } catch (err) {
    throw inputError(`Cannot write output file ${file}: ${(err as Error).message}`)
  }
}
