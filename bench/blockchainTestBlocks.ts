/**
 * Writes the canonical blocks of one ethereum/tests blockchain test as a block file (`basalt blocks
 * import`'s RLP format: the blocks' RLP one after another), skipping the blocks the test marks
 * `reverted` (a side chain). Besu's GraphQL test chain begins with the 32 blocks of the 2015 revision
 * of `BlockchainTests/bcRPC_API_Test.json` (`RPC_API_Test`), on the genesis of Besu's
 * `hive/testGenesis.json`; bench/besuGraphqlSpecs.ts takes the file as `testBlockchain.blocks`.
 *
 * Run: node_modules/.bin/bun bench/blockchainTestBlocks.ts <test.json> <test name> <out.blocks>
 */
import { readFileSync, writeFileSync } from 'node:fs'

interface BlockchainTest {
  blocks: { rlp: string; reverted?: boolean; blockHeader?: { number?: string } }[]
}

const [file, name, out] = process.argv.slice(2)
if (!file || !name || !out) {
  console.error('usage: bun bench/blockchainTestBlocks.ts <test.json> <test name> <out.blocks>')
  process.exit(2)
}
const test = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, BlockchainTest>)[name]
if (!test) {
  console.error(`${file} has no test named ${name}`)
  process.exit(1)
}
const canonical = test.blocks.filter((b) => !b.reverted)
writeFileSync(out, Buffer.concat(canonical.map((b) => Buffer.from(b.rlp.replace(/^0x/, ''), 'hex'))))
console.log(`wrote ${canonical.length} blocks to ${out}`)
