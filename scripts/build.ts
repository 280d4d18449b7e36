/**
 * Builds the executable `dist/basalt`: what `bun build --compile --minify --sourcemap --bytecode
 * --format=cjs --external better-sqlite3 src/cli/main.ts src/chain/kzgWorker.ts src/node/callWorker.ts --outfile dist/basalt`
 * builds, with three things the command line does not offer:
 *
 * - the `debug` package is replaced by scripts/debugStub.cjs (loggers that do nothing unless `DEBUG`
 *   is set when the process starts; see that file);
 * - text patches of library files (src/evm/libraryPatches.ts: the EVM's memory starts at 1 KiB per
 *   call frame, @ethereumjs/util pads bytes without spreading arrays);
 * - profile-guided bytecode layout: a first build is started once (`basalt run` on a throw-away data
 *   path until it answers `eth_blockNumber`) with `BUN_BYTECODE_ORDER_OUT`, which records the
 *   functions the start uses, and the second build places their bytecode together at the front of
 *   the executable, so that a start touches fewer of its pages (about 4 MiB less idle RSS). When the
 *   recording fails, the first build is kept as it is and a warning says so.
 *
 * The executable's entry is src/cli/launch.ts (the first entry point below): it sets the engine's
 * options (src/runtime/engineOptions.ts) and then loads src/cli/main.ts, a further entry point.
 *
 * Usage: `bun scripts/build.ts [outfile]` (the Makefile's `build` target runs it).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BunPlugin } from 'bun'
import { libraryPatches } from './libraryPatches.ts'

const root = new URL('..', import.meta.url).pathname
const outfile = process.argv[2] ?? 'dist/basalt'
const RECORD_LIMIT_MS = 60_000

const stubDebug: BunPlugin = {
  name: 'basalt-debug-stub',
  setup(build) {
    build.onResolve({ filter: /^debug$/ }, () => ({ path: `${root}scripts/debugStub.cjs` }))
  },
}

async function build(bytecodeOrder?: string): Promise<void> {
  const result = await Bun.build({
    entrypoints: [`${root}src/cli/launch.ts`, `${root}src/cli/main.ts`, `${root}src/chain/kzgWorker.ts`, `${root}src/node/callWorker.ts`],
    compile: { outfile, bytecodeOrder },
    minify: true,
    sourcemap: 'linked',
    bytecode: true,
    format: 'cjs',
    external: ['better-sqlite3'],
    plugins: [stubDebug, libraryPatches],
  })
  if (!result.success) {
    for (const message of result.logs) console.error(message)
    process.exit(1)
  }
}

/** A port free on 127.0.0.1 at the time of asking. */
function freePort(): number {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = server.port
  server.stop(true)
  return port
}

/** Starts the first build until the chain answers, recording the functions it runs into `orderFile`. */
async function recordStart(orderFile: string, dir: string): Promise<boolean> {
  const port = freePort()
  const proc = Bun.spawn(
    [outfile, 'run', '--data-path', join(dir, 'data'), '--rpc-http-port', String(port), '--rpc-ws-enabled=false'],
    { env: { ...process.env, BUN_BYTECODE_ORDER_OUT: orderFile }, stdout: 'ignore', stderr: 'ignore' },
  )
  const startedAt = performance.now()
  let answered = false
  while (!answered && performance.now() - startedAt < RECORD_LIMIT_MS && proc.exitCode === null) {
    answered = await fetch(`http://127.0.0.1:${port}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}',
    }).then(
      (r) => r.ok,
      () => false,
    )
    if (!answered) await Bun.sleep(20)
  }
  proc.kill('SIGINT')
  const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)])
  if (!exited) proc.kill('SIGKILL')
  return answered && exited && (await Bun.file(orderFile).exists())
}

await build()
const dir = mkdtempSync(join(tmpdir(), 'basalt-build-'))
try {
  const orderFile = join(dir, 'bytecode-order.txt')
  if (await recordStart(orderFile, dir)) {
    await build(orderFile)
    console.log(`build: ${outfile} with the bytecode order of a recorded start`)
  } else console.warn('build: recording the start failed; the executable is built without a bytecode order')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
