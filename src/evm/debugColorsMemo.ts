/**
 * The ethereumjs libraries log through the `debug` package, and every trie, state cache and VM they
 * construct creates its loggers (a block builds a dozen, an `eth_call` session more). Each
 * `createDebug` asks whether stderr is a terminal (`isatty`, a system call) to choose colours: 2.6 %
 * of the CPU of a one-transfer block. Whether stderr is a terminal does not change while the process
 * runs, so the answer is kept after the first question; everything else `debug` does is unchanged
 * (`DEBUG_COLORS` still decides first, as the package reads it at load).
 */
// @ts-expect-error the package ships no type declarations; only `useColors` is used, typed below
import createDebug from 'debug'

type DebugModule = { useColors: () => boolean }

let isInstalled = false

export function installDebugColorsMemo(): void {
  if (isInstalled) return
  isInstalled = true
  const debug = createDebug as unknown as DebugModule
  const useColors = debug.useColors.bind(debug)
  let colors: boolean | undefined
  debug.useColors = () => {
    colors ??= useColors()
    return colors
  }
}
