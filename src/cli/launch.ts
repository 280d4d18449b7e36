/**
 * Entry point of the compiled `basalt` executable. It sets the engine's options first
 * (runtime/engineOptions.ts, which may restart the executable with them), and only then loads the
 * command line (cli/main.ts, a second entry point of the executable): a restart then costs the
 * runtime's start and this small module, not the load of the whole node. `bun src/cli/main.ts`
 * runs the command line directly, without this module.
 */
import '../runtime/engineOptions.ts'

/** Where `make build` places cli/main.ts inside the executable; a variable, so the bundler leaves it. */
const MAIN_MODULE = '/$bunfs/root/cli/main.ts'

import(MAIN_MODULE).then(
  (cli: { main: (argv: string[]) => Promise<void> }) => cli.main(process.argv),
  (err: unknown) => {
    process.stderr.write(`basalt: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  },
)
