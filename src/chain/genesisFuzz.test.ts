/**
 * Property test over Besu-style genesis `config` objects (random subsets and orders of the fork keys
 * Besu reads, block numbers and timestamps, some out of order or malformed): every file either
 * loads, opens a chain with a genesis block and gives each header a fork, or is refused with one
 * line that names the file and the field, never a crash from deeper down. Seeded; GENESIS_FUZZ_SEED
 * replays another run.
 */
import { randomGenesis, seededRandom } from '../../test/fixtures/randomGenesis.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { parseGenesisText } from './genesis.ts'
import { openMemoryChain } from './memoryChain.ts'

const SEED = Number(globalThis.process?.env?.GENESIS_FUZZ_SEED ?? 0x6e5)
const FILES = 250
/** What a refusal names: a field of the file or Besu's ordering error. */
const NAMES_A_FIELD = /^invalid genesis file g\.json: (config\.|baseFeePerGas|the genesis header|Genesis Config Error)/

describe('random Besu genesis configs', () => {
  it(`load or are refused in one line naming the field (${FILES} files, seed ${SEED})`, async () => {
    const random = seededRandom(SEED)
    let loaded = 0
    const started = Date.now()
    for (let i = 0; i < FILES && Date.now() - started < 60_000; i++) {
      const text = JSON.stringify(randomGenesis(random, 1000 + i))
      let genesis: ReturnType<typeof parseGenesisText>
      try {
        genesis = parseGenesisText(text, 'g.json')
      } catch (e) {
        const message = (e as Error).message
        const verdict = message.includes('\n') || !NAMES_A_FIELD.test(message) ? `unclear: ${message}` : 'refused'
        expect(`${text} → ${verdict}`).toBe(`${text} → refused`)
        continue
      }
      const chain = await openMemoryChain(genesis)
      expect(chain.genesis.header.number).toBe(0n)
      expect(chain.common.chainId()).toBe(BigInt(1000 + i))
      for (let n = 0n; n < 40n; n += 3n) {
        const fork = chain.common.getHardforkBy({ blockNumber: n, timestamp: chain.genesis.header.timestamp + n * 2n })
        expect(typeof fork).toBe('string')
      }
      expect(typeof chain.commonForNextBlock().hardfork()).toBe('string')
      loaded++
    }
    // The generator is meant to produce both kinds; most files load.
    expect(loaded).toBeGreaterThan(FILES / 4)
  })
})
