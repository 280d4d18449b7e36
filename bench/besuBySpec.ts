/**
 * Runs Besu's own JSON-RPC by-spec files (hyperledger/besu
 * `ethereum/api/src/test/resources/org/hyperledger/besu/ethereum/api/jsonrpc/`: `trace/`, `eth/`,
 * `debug/`, `eth/config/`, ...) against the compiled node. The files are Besu's and are not kept
 * here: point the runner at a directory laid out as Besu's by-spec folders,
 * `chain-data/genesis.json`, optionally `chain-data/blocks.json` (Besu's JSON block format) or
 * `chain-data/blocks.rlp` (concatenated RLP blocks), and `specs/**` `/*.json`, each
 * `{request, response, statusCode?}` (a request may be a batch: an array, answered by an array).
 * Without a block file the specs run on the genesis alone. Besu's eth/ and debug/ specs run on its
 * hive test chain, whose first 32 blocks bench/blockchainTestBlocks.ts rebuilds as `blocks.rlp`
 * (docs/rpc-methods.md, "Checked against Besu's eth specs").
 *
 * As Besu's `AbstractJsonRpcHttpBySpecTest`: the blocks are imported (`basalt blocks import`) into a
 * fresh data path, `dist/basalt` starts on it (HTTP on a free port, 127.0.0.1, the ETH, NET, WEB3,
 * DEBUG and TRACE groups of Besu's harness, network id 123 as there), each spec's request is sent
 * and the answer compared with the expected response as a JSON tree (key order aside), and the
 * HTTP status when the spec gives one. One normalisation: Besu's specs were recorded on blocks Besu
 * built from the same file with its own clock, so a block's timestamp, and with it its hash,
 * differs; every `blockHash` of the expected response that sits beside a `blockNumber` is replaced
 * with this chain's hash of that block before the comparison.
 *
 * Run: node_modules/.bin/bun bench/besuBySpec.ts <dir> [-v] [filter]
 *   -v prints both sides of each mismatch; filter keeps the specs whose path contains it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { startNode } from '../test/e2e/harness.ts'
import { importChain, specFiles } from './besuSpecFolder.ts'
import { canonical, differences, type Json } from './jsonCanonical.ts'

interface Spec {
  request: Json
  response: Json
  statusCode?: number
}

const args = process.argv.slice(2)
const verbose = args.includes('-v')
const [root, filter] = args.filter((a) => a !== '-v')
if (!root) {
  console.error('usage: bun bench/besuBySpec.ts <dir> [-v] [filter]')
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

/** Both answers are errors (or batches of them) with the same codes: only the messages differ. */
function isSameErrorCode(expected: Json, actual: Json): boolean {
  if (Array.isArray(expected) && Array.isArray(actual))
    return expected.length === actual.length && expected.every((e, i) => isSameErrorCode(e, actual[i] as Json))
  const code = (v: Json) =>
    v && typeof v === 'object' && !Array.isArray(v) ? (v.error as { code?: Json } | undefined)?.code : undefined
  return code(expected) !== undefined && code(expected) === code(actual)
}

/**
 * The differences are only fields Besu changed after most stored spec versions were written: it added
 * `blockTimestamp` to logs and transactions (besu PRs #9278, #9294, #9887) and removed
 * `totalDifficulty` from blocks (#11179); Basalt answers as the newer Besu does.
 */
function isOnlyNewerFields(diffs: string[]): boolean {
  return (
    diffs.length > 0 &&
    diffs.every((d) => /\.blockTimestamp: unexpected /.test(d) || /\.totalDifficulty: missing, /.test(d))
  )
}

/** The block file of the folder (JSON or RLP), or undefined for a genesis-only run. */
function blockFile(chainData: string): string | undefined {
  return ['blocks.json', 'blocks.rlp'].map((name) => join(chainData, name)).find((path) => existsSync(path))
}

const work = mkdtempSync(join(tmpdir(), 'basalt-besu-spec-'))
const dataPath = join(work, 'data')
const genesis = join(root, 'chain-data', 'genesis.json')
const blocks = blockFile(join(root, 'chain-data'))
if (blocks) {
  // Besu's test chains carry ethash seals of blocks mined for tests (its own harness imports them
  // without mining); the seal check is off, the header, body and state rules hold.
  if (!(await importChain(genesis, blocks, dataPath, ['--skip-pow-validation-enabled']))) {
    rmSync(work, { recursive: true, force: true })
    process.exit(1)
  }
} else console.log('no chain-data/blocks.json or blocks.rlp: the specs run on the genesis alone')

const node = await startNode({
  dataPath,
  args: [
    '--genesis-file',
    genesis,
    '--network-id',
    '123',
    '--rpc-http-api',
    'ETH,NET,WEB3,DEBUG,TRACE',
    '--rpc-ws-enabled=false',
  ],
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
    const expectedJson = withOurBlockHashes(spec.response, hashOf)
    const actual = (json ?? null) as Json
    const statusOk = spec.statusCode === undefined || spec.statusCode === status
    if (canonical(expectedJson) === canonical(actual) && statusOk) {
      passed++
      console.log(`ok   ${name}`)
      continue
    }
    failed++
    const diffs = differences(expectedJson, actual)
    const sameCode = isSameErrorCode(expectedJson, actual) ? ' (same error code, other message)' : ''
    const newer = isOnlyNewerFields(diffs) ? " (only fields of Besu's later versions)" : ''
    console.log(`FAIL ${name}${statusOk ? '' : ` (status ${status}, expected ${spec.statusCode})`}${sameCode}${newer}`)
    for (const d of diffs) console.log(`     ${d}`)
    if (verbose) {
      console.log(`  expected: ${JSON.stringify(expectedJson)}`)
      console.log(`  actual:   ${JSON.stringify(json)}`)
    }
  }
} finally {
  await node.cleanup()
  rmSync(work, { recursive: true, force: true })
}
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
