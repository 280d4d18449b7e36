/**
 * Preloaded before every test file (bunfig.toml). Bun ignores a `timeout` key in bunfig.toml, so
 * without this every test ran under its 5 s default: e2e tests that start the compiled binary, or
 * import a chain, failed on a loaded machine while passing on an idle one.
 */
import { setDefaultTimeout } from 'bun:test'

setDefaultTimeout(60_000)
