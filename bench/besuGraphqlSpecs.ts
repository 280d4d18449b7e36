/**
 * Runs Besu's own GraphQL specs (hyperledger/besu
 * `ethereum/api/src/test/resources/org/hyperledger/besu/ethereum/api/graphql/`, each
 * `{request, variables?, response, statusCode}`) against the compiled node. The files are Besu's and
 * are not kept here: point the runner at a folder laid out as
 *
 *   genesis.json          the chain's genesis (Besu's `testutil/src/main/resources/hive/testGenesis.json`)
 *   testBlockchain.blocks  optional, its blocks as concatenated RLP (Besu's `hive/testBlockchain.blocks`,
 *                          or its first 32 blocks from bench/blockchainTestBlocks.ts, docs/graphql.md),
 *   or blocks.json         Besu's JSON block format instead
 *   specs/**               the spec files
 *
 * As Besu's `EthGraphQLHttpBySpecTest`: the blocks are imported first (`basalt blocks import`, the
 * ethash seals not checked), the node runs on them with GraphQL on, and each request is posted to
 * `/graphql/` — the bare query as `application/graphql`, or, when the spec has `variables`, a JSON body
 * `{query, variables}`; the body must equal `response` as a JSON tree (key order aside) and the HTTP
 * status `statusCode`.
 *
 * Besu's harness answers some fields from mocks a running node cannot reproduce (a pending pool of one
 * transaction of nonce 42, a sync status 1/2/3, a pool refusing nonce 16); and without Besu's block
 * file values cannot match. So a mismatch whose answer has the expected shape (the same keys, nulls,
 * array lengths and kinds of value: hex quantity, 20- or 32-byte hex, number, string) is counted as
 * `shape`, apart from the exact `ok` and the `FAIL`s. An expected error answer must match exactly.
 *
 * Run: node_modules/.bin/bun bench/besuGraphqlSpecs.ts <dir> [-v] [filter]
 *   -v prints both bodies of each mismatch; filter keeps the specs whose path contains it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { startNode } from '../test/e2e/harness.ts'
import { importChain, specFiles } from './besuSpecFolder.ts'
import { bodyJson, canonical, differences, type Json } from './jsonCanonical.ts'

interface GraphqlSpec {
  request: string
  variables?: string
  response: Json
  statusCode: number
}

const args = process.argv.slice(2)
const verbose = args.includes('-v')
const [root, filter] = args.filter((a) => a !== '-v')
if (!root) {
  console.error('usage: bun bench/besuGraphqlSpecs.ts <dir> [-v] [filter]')
  process.exit(2)
}

/** The kind of a JSON value, values aside. */
function shape(v: Json): Json {
  if (Array.isArray(v)) return v.map(shape)
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]))
  if (typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v))
    return v.length === 42 ? 'address' : v.length === 66 ? 'bytes32' : 'hex'
  return v === null ? null : typeof v
}

/** An error answer is compared exactly: its messages do not depend on the chain. */
const hasErrors = (v: Json) => v !== null && typeof v === 'object' && !Array.isArray(v) && 'errors' in v

const work = mkdtempSync(join(tmpdir(), 'basalt-besu-graphql-'))
const dataPath = join(work, 'data')
const genesis = join(root, 'genesis.json')
const blocks = ['testBlockchain.blocks', 'blocks.json'].map((n) => join(root, n)).find((f) => existsSync(f))
if (blocks && !(await importChain(genesis, blocks, dataPath, ['--skip-pow-validation-enabled']))) {
  rmSync(work, { recursive: true, force: true })
  process.exit(1)
}
if (!blocks) console.log('no block file: the specs run on the genesis alone')

const node = await startNode({
  dataPath,
  args: ['--genesis-file', genesis, '--graphql-http-enabled', '--graphql-http-port', '0', '--rpc-ws-enabled=false'],
  timeoutMs: 60_000,
})
const tally = { ok: 0, shape: 0, FAIL: 0 }
try {
  const port = (node.config as unknown as { graphqlHttpPort: number | null }).graphqlHttpPort
  if (!port) throw new Error('the node did not open a GraphQL port')
  // Besu's harness posts to `/graphql/`.
  const url = `http://127.0.0.1:${port}/graphql/`
  const dir = join(root, 'specs')
  for (const file of specFiles(dir).filter((f) => !filter || f.includes(filter))) {
    const name = relative(dir, file)
    const spec = JSON.parse(readFileSync(file, 'utf8')) as GraphqlSpec
    const init =
      spec.variables === undefined
        ? { body: spec.request, headers: { 'content-type': 'application/graphql; charset=utf-8' } }
        : {
            body: JSON.stringify({ query: spec.request, variables: JSON.parse(spec.variables) }),
            headers: { 'content-type': 'application/json; charset=utf-8' },
          }
    const res = await fetch(url, { method: 'POST', ...init, signal: AbortSignal.timeout(60_000) })
    const actual = await bodyJson(res)
    const statusOk = res.status === spec.statusCode
    const verdict =
      statusOk && canonical(actual) === canonical(spec.response)
        ? 'ok'
        : statusOk && !hasErrors(spec.response) && canonical(shape(actual)) === canonical(shape(spec.response))
          ? 'shape'
          : 'FAIL'
    tally[verdict]++
    console.log(`${verdict.padEnd(5)} ${name}${statusOk ? '' : ` (HTTP ${res.status}, expected ${spec.statusCode})`}`)
    if (verdict === 'ok') continue
    for (const d of differences(spec.response, actual)) console.log(`      ${d}`)
    if (verbose) {
      console.log(`  expected: ${JSON.stringify(spec.response)}`)
      console.log(`  actual:   ${JSON.stringify(actual)}`)
    }
  }
} finally {
  await node.cleanup()
  rmSync(work, { recursive: true, force: true })
}
console.log(`${tally.ok} ok, ${tally.shape} same shape, ${tally.FAIL} failed`)
process.exit(tally.FAIL ? 1 : 0)
