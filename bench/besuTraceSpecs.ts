/**
 * Runs Besu's own trace JSON-RPC specs (hyperledger/besu
 * `ethereum/api/src/test/resources/org/hyperledger/besu/ethereum/api/jsonrpc/trace/`) against the
 * compiled node. The files are Besu's and are not kept here: point the runner at a directory laid
 * out as Besu's, `chain-data/genesis.json`, `chain-data/blocks.json` (Besu's JSON block format) and
 * `specs/**` `/*.json`, each `{request, response, statusCode?}`.
 *
 * The runner imports the blocks with `basalt blocks import --format=JSON` into a fresh data path,
 * starts `dist/basalt` on it (HTTP on a free port, 127.0.0.1, TRACE and DEBUG enabled), sends each
 * spec's request and compares the answer with the expected response as Besu's harness does: JSON
 * equality (key order aside), and the HTTP status when the spec gives one. One normalisation: Besu's
 * specs were recorded on blocks Besu built from the same file with its own clock, so a block's
 * timestamp, and with it its hash, differs; every `blockHash` of the expected response that sits
 * beside a `blockNumber` is replaced with this chain's hash of that block before the comparison.
 *
 * Run: node_modules/.bin/bun bench/besuTraceSpecs.ts <dir> [-v] [filter]
 *   -v prints both sides of each mismatch; filter keeps the specs whose path contains it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { startNode } from '../test/e2e/harness.ts'
import { importChain, specFiles } from './besuSpecFolder.ts'
import { canonical, type Json } from './jsonCanonical.ts'

interface Spec {
  request: Json
  response: Json
  statusCode?: number
}

const args = process.argv.slice(2)
const verbose = args.includes('-v')
const [root, filter] = args.filter((a) => a !== '-v')
if (!root) {
  console.error('usage: bun bench/besuTraceSpecs.ts <dir> [-v] [filter]')
  process.exit(2)
}

/** Replaces every `blockHash` that sits beside a `blockNumber` with `hashOf(blockNumber)`. */
function withOurBlockHashes(v: Json, hashOf: Map<number, string>): Json {
  if (Array.isArray(v)) return v.map((x) => withOurBlockHashes(x, hashOf))
  if (v && typeof v === 'object') {
    const out: { [k: string]: Json } = {}
    for (const [k, x] of Object.entries(v)) out[k] = withOurBlockHashes(x, hashOf)
    if (typeof out.blockHash === 'string' && typeof out.blockNumber === 'number') {
      const ours = hashOf.get(out.blockNumber)
      if (ours) out.blockHash = ours
    }
    return out
  }
  return v
}

const work = mkdtempSync(join(tmpdir(), 'basalt-besu-trace-'))
const dataPath = join(work, 'data')
const genesis = join(root, 'chain-data', 'genesis.json')
if (!(await importChain(genesis, join(root, 'chain-data', 'blocks.json'), dataPath))) {
  rmSync(work, { recursive: true, force: true })
  process.exit(1)
}

const node = await startNode({
  dataPath,
  args: ['--genesis-file', genesis, '--rpc-http-api', 'ETH,NET,WEB3,DEBUG,TRACE', '--rpc-ws-enabled=false'],
  timeoutMs: 60_000,
})
let failed = 0
let passed = 0
try {
  const head = Number.parseInt(await node.rpc<string>('eth_blockNumber'), 16)
  const hashOf = new Map<number, string>()
  for (let n = 0; n <= head && n < 10_000; n++) {
    const block = await node.rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
    hashOf.set(n, block.hash)
  }
  const files = specFiles(join(root, 'specs')).filter((f) => !filter || f.includes(filter))
  for (const file of files) {
    const name = relative(join(root, 'specs'), file)
    let spec: Spec
    try {
      spec = JSON.parse(readFileSync(file, 'utf8')) as Spec
    } catch (e) {
      console.log(`SKIP ${name}: ${(e as Error).message}`)
      continue
    }
    const { status, json } = await node.rpcRaw(spec.request)
    const expected = canonical(withOurBlockHashes(spec.response, hashOf))
    const actual = canonical(json as Json)
    const statusOk = spec.statusCode === undefined || spec.statusCode === status
    if (expected === actual && statusOk) {
      passed++
      console.log(`ok   ${name}`)
    } else {
      failed++
      console.log(`FAIL ${name}${statusOk ? '' : ` (status ${status}, expected ${spec.statusCode})`}`)
      if (verbose) {
        console.log(`  expected: ${JSON.stringify(withOurBlockHashes(spec.response, hashOf))}`)
        console.log(`  actual:   ${JSON.stringify(json)}`)
      }
    }
  }
} finally {
  await node.cleanup()
  rmSync(work, { recursive: true, force: true })
}
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
