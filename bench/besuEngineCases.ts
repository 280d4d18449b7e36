/**
 * Runs Besu's Engine API acceptance cases (hyperledger/besu
 * `acceptance-tests/tests/src/test/resources/jsonrpc/engine/<fork>/`) against the compiled node.
 * The files are Besu's and are not kept here: point the runner at a folder laid out as Besu's, a
 * `genesis.json` and a `test-cases` folder of `NN_*.json` files, each
 * `{request, response, statusCode, waitTime?}`; `--cases <sub>` takes the cases of a sub-folder of
 * `test-cases` instead (Cancun's `block-production`) with the same genesis.
 *
 * As Besu's `AbstractJsonRpcTest`: one node per folder, started on the genesis with the Engine API
 * on (no JWT, as the acceptance DSL's engine configuration) and mining off (the Engine API drives
 * the blocks); the cases run in file-name order against the same node, each after its `waitTime`
 * in milliseconds; a method with `eth_` or `engine_` in its name goes to the Engine port, any other
 * to the HTTP port; the HTTP status must equal `statusCode` and the body must equal `response` as a
 * JSON tree (key order aside, nothing ignored).
 *
 * Run: node_modules/.bin/bun bench/besuEngineCases.ts <dir> [--cases <sub>] [-v] [filter]
 *   -v prints both bodies of each mismatch; filter keeps the cases whose name contains it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { startNode } from '../test/e2e/harness.ts'
import { bodyJson, canonical, differences, type Json } from './jsonCanonical.ts'

interface EngineCase {
  request: { method?: string } & { [k: string]: Json }
  response: Json
  statusCode: number
  waitTime?: number
}

const argv = process.argv.slice(2)
const verbose = argv.includes('-v')
const casesAt = argv.indexOf('--cases')
const sub = casesAt >= 0 ? argv[casesAt + 1] : undefined
const rest = argv.filter((a, i) => a !== '-v' && (casesAt < 0 || (i !== casesAt && i !== casesAt + 1)))
const [root, filter] = rest
if (!root) {
  console.error('usage: bun bench/besuEngineCases.ts <dir> [--cases <sub>] [-v] [filter]')
  process.exit(2)
}
const casesDir = sub ? join(root, 'test-cases', sub) : join(root, 'test-cases')
const files = readdirSync(casesDir)
  .filter((n) => n.endsWith('.json') && statSync(join(casesDir, n)).isFile())
  .sort()
  .filter((n) => !filter || n.includes(filter))

const node = await startNode({
  args: [
    '--genesis-file',
    join(root, 'genesis.json'),
    '--rpc-http-api',
    'ETH,NET,WEB3,TXPOOL,DEBUG',
    '--engine-rpc-enabled',
    '--engine-rpc-port',
    '0',
    '--engine-jwt-disabled',
    '--rpc-ws-enabled=false',
  ],
  timeoutMs: 60_000,
})
const enginePort = (node.config as unknown as { engineRpcPort: number | null }).engineRpcPort
let passed = 0
let failed = 0
try {
  if (!enginePort) throw new Error('the node did not open an Engine API port')
  const engineUrl = `http://127.0.0.1:${enginePort}`
  for (const name of files) {
    const c = JSON.parse(readFileSync(join(casesDir, name), 'utf8')) as EngineCase
    if (c.waitTime && c.waitTime > 0) await Bun.sleep(Math.min(c.waitTime, 30_000))
    const method = String(c.request.method)
    const url = method.includes('eth_') || method.includes('engine_') ? engineUrl : node.url
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(c.request),
      signal: AbortSignal.timeout(60_000),
    })
    const actual = await bodyJson(res)
    const statusOk = res.status === c.statusCode
    if (statusOk && canonical(actual) === canonical(c.response)) {
      passed++
      console.log(`ok   ${name}`)
      continue
    }
    failed++
    console.log(`FAIL ${name}${statusOk ? '' : ` (HTTP ${res.status}, expected ${c.statusCode})`}`)
    for (const d of differences(c.response, actual)) console.log(`     ${d}`)
    if (verbose) {
      console.log(`  expected: ${JSON.stringify(c.response)}`)
      console.log(`  actual:   ${JSON.stringify(actual)}`)
    }
  }
} finally {
  await node.cleanup()
}
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
