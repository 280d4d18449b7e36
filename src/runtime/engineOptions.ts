/**
 * JavaScriptCore options of the executable. The engine reads its options (`BUN_JSC_*`) from the
 * environment once, before any JavaScript runs, and freezes them; an executable built with `bun
 * build --compile` has no other way to set them. So the compiled executable, when started without
 * `BUN_JSC_useFTLJIT` in its environment, replaces itself at once (`execve`, same process id,
 * same arguments and file descriptors) with a copy of itself started with `BUN_JSC_useFTLJIT=false`.
 *
 * Why: the engine's fourth tier (FTL) cost more than it gave on the node's paths. Over HTTP, a
 * node without it used about a quarter less CPU per awaited transfer and about half per `eth_call`
 * (docs/performance.md, "Issue 18: the awaited write path, second round"); the price is the
 * second start of the runtime, a few tens of milliseconds before the node opens its chain. Anyone
 * who sets `BUN_JSC_useFTLJIT` themselves (to either value) gets the engine as they set it.
 *
 * The same restart sizes the collector's heap for a machine of 512 MiB (`BUN_JSC_forceRAMSize`,
 * unless set): the engine otherwise sizes it from the machine's RAM and lets garbage pile up between
 * collections while blocks are sealed. In the shared harness's CI-sized run that moved the peak RSS
 * from 314-374 MiB to 271-295 at no CPU cost per transaction or call measured (docs/performance.md,
 * "Issue 18: peak memory"). It is a sizing hint, not a limit: a larger live heap still grows.
 *
 * Only the long-running commands restart (`run`, `blocks`): the others end before the tier would
 * have compiled anything.
 *
 * This module must be the first one the entry point imports: it runs before every other module
 * has been evaluated. It does nothing under `bun test`, `bun src/cli/main.ts`, Node or Deno.
 */

const OPTION = 'BUN_JSC_useFTLJIT'
/** The RAM size the engine sizes its heap's growth by (bytes), set with the restart. */
const RAM_SIZE_OPTION = 'BUN_JSC_forceRAMSize'
const RAM_SIZE_BYTES = String(512 * 2 ** 20)
/** The commands that run long enough for the option to matter (the first argument). */
const LONG_COMMANDS = new Set(['run', 'blocks'])

/** True in an executable built with `bun build --compile` (its modules live under `/$bunfs/`). */
function isCompiledExecutable(): boolean {
  const bun = (globalThis as { Bun?: { main?: string } }).Bun
  return typeof bun?.main === 'string' && bun.main.startsWith('/$bunfs/')
}

function restartWithEngineOptions(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: Record<string, string>) => void }).execve
  if (process.env[OPTION] !== undefined || !LONG_COMMANDS.has(process.argv[2] ?? '')) return
  if (!isCompiledExecutable() || typeof execve !== 'function') return
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value
  env[OPTION] = 'false'
  env[RAM_SIZE_OPTION] ??= RAM_SIZE_BYTES
  try {
    // argv[1] is the executable's embedded entry (`/$bunfs/root/…`), which the runtime adds again.
    execve.call(process, process.execPath, [process.execPath, ...process.argv.slice(2)], env)
  } catch {
    // The process goes on with the engine's defaults: slower, never wrong.
  }
}

restartWithEngineOptions()
