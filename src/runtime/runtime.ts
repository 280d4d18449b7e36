/**
 * The runtime layer: the one folder that knows whether the code runs under Bun (the compiled
 * executable or `bun src/cli/main.ts`), Deno 2 or Node 22. Everything above asks it for a server,
 * a SQLite driver or a worker and never looks at `Bun`, `Deno` or `process.versions` itself.
 * This file only names the runtime; httpServer.ts, sqliteDriver.ts and worker.ts hold the adapters.
 */

export type RuntimeName = 'bun' | 'deno' | 'node'

declare const Deno: { version: { deno: string } } | undefined

/** Which runtime is executing this code. */
export function runtimeName(): RuntimeName {
  if (typeof Bun !== 'undefined') return 'bun'
  if (typeof Deno !== 'undefined') return 'deno'
  return 'node'
}

/** The runtime and its version as the client version names them: `bun-1.4.5`, `deno-2.9.6`, `node-22.23.3`. */
export function runtimeTag(): string {
  switch (runtimeName()) {
    case 'bun':
      return `bun-${Bun.version}`
    case 'deno':
      return `deno-${(Deno as { version: { deno: string } }).version.deno}`
    default:
      return `node-${process.versions.node}`
  }
}

/** Where `bun build --compile` places the bundled entry points inside the executable. */
const COMPILED_ROOT = '/$bunfs/root/'

/**
 * The specifier of a module that `make build` compiles as an extra entry point (a worker), given as
 * a path under src/ (`chain/kzgWorker.ts`). Inside the executable import.meta.url, fixed at build
 * time, does not point at it; from source it is resolved against `sourceRoot`, a URL of src/.
 */
export function entryPointSpecifier(pathUnderSrc: string, sourceRoot: string): string {
  const isCompiled = runtimeName() === 'bun' && Bun.main.startsWith(COMPILED_ROOT)
  return isCompiled ? `${COMPILED_ROOT}${pathUnderSrc}` : new URL(pathUnderSrc, sourceRoot).href
}
