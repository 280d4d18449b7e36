import type { Chain } from '../chain/chain.ts'
import { openChain } from '../node/node.ts'
import { bytesToBigint, hexToBytes } from '../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../runtime/testing.ts'
import { SimulateError, simulate } from './simulator.ts'
import { ETH_TOKEN_ADDRESS } from './transferLogs.ts'

let chain: Chain
let close: () => void
beforeAll(async () => {
  ;({ chain, close } = await openChain({ dataPath: ':memory:' }))
})
afterAll(() => close())

const A = hexToBytes('0xc000000000000000000000000000000000000000')
const B = hexToBytes('0xc100000000000000000000000000000000000000')
/** Returns NUMBER. */
const RETURN_NUMBER = hexToBytes('0x4360005260206000f3')

describe('simulate', () => {
  it('carries state from one simulated block to the next', async () => {
    const blocks = await simulate(chain, chain.head, {
      isValidated: false,
      gasCap: 0n,
      blockStateCalls: [
        { stateOverrides: [[A, { balance: 1000n }]], calls: [{ from: A, to: B, value: 1000n }] },
        { calls: [{ from: B, to: A, value: 1000n }] },
      ],
    })
    expect(blocks.map((b) => b.block.header.number)).toEqual([1n, 2n])
    expect(blocks.every((b) => b.calls[0].isSuccess)).toBe(true)
    expect(blocks[1].block.header.parentHash).toEqual(blocks[0].block.hash())
  })

  it('fills gaps in block numbers with empty blocks', async () => {
    const blocks = await simulate(chain, chain.head, {
      isValidated: false,
      gasCap: 0n,
      blockStateCalls: [
        { blockOverrides: { number: 3n }, stateOverrides: [[B, { code: RETURN_NUMBER }]], calls: [{ to: B }] },
      ],
    })
    expect(blocks.length).toBe(3)
    expect(bytesToBigint(blocks[2].calls[0].returnData)).toBe(3n)
  })

  it('reports value transfers as ERC-7528 logs with traceTransfers, outside the receipts', async () => {
    const [b] = await simulate(chain, chain.head, {
      isValidated: false,
      isTraceTransfers: true,
      gasCap: 0n,
      blockStateCalls: [{ stateOverrides: [[A, { balance: 1000n }]], calls: [{ from: A, to: B, value: 1000n }] }],
    })
    const [log] = b.calls[0].logs
    expect(log[0]).toEqual(ETH_TOKEN_ADDRESS)
    expect(bytesToBigint(log[2])).toBe(1000n)
    expect(b.block.header.logsBloom.every((x) => x === 0)).toBe(true)
  })

  it('lets a sender at nonce 2^64-1 send without validation, its nonce wrapping to 0', async () => {
    const maxNonce = 2n ** 64n - 1n
    const send = { from: A, to: B }
    const [b] = await simulate(chain, chain.head, {
      isValidated: false,
      gasCap: 0n,
      blockStateCalls: [{ stateOverrides: [[A, { nonce: maxNonce }]], calls: [send, send] }],
    })
    expect(b.calls.every((c) => c.isSuccess)).toBe(true)
    expect(b.block.transactions.map((tx) => tx.nonce)).toEqual([maxNonce, 0n])
  })

  it('refuses a sender at nonce 2^64-1 with validation', async () => {
    const err = await simulate(chain, chain.head, {
      isValidated: true,
      gasCap: 0n,
      blockStateCalls: [{ stateOverrides: [[A, { nonce: 2n ** 64n - 1n }]], calls: [{ from: A, to: B }] }],
    }).catch((e) => e)
    expect((err as SimulateError).kind).toBe('nonceMax')
  })

  it('refuses block numbers that go backwards', async () => {
    const err = await simulate(chain, chain.head, {
      isValidated: false,
      gasCap: 0n,
      blockStateCalls: [{ blockOverrides: { number: 5n } }, { blockOverrides: { number: 4n } }],
    }).catch((e) => e)
    expect(err).toBeInstanceOf(SimulateError)
    expect((err as SimulateError).kind).toBe('blockNumberOrder')
  })

  it('builds a block at timestamp 2^64 - 1 and refuses one after it, also a gap-filling one', async () => {
    const max = 2n ** 64n - 1n
    const [last] = await simulate(chain, chain.head, {
      isValidated: false,
      gasCap: 0n,
      blockStateCalls: [{ blockOverrides: { time: max } }],
    })
    expect(last.block.header.timestamp).toBe(max)
    for (const next of [{}, { number: chain.head.header.number + 3n }]) {
      const err = await simulate(chain, chain.head, {
        isValidated: false,
        gasCap: 0n,
        blockStateCalls: [{ blockOverrides: { time: max } }, { blockOverrides: next }],
      }).catch((e) => e)
      expect(err).toBeInstanceOf(SimulateError)
      expect([(err as SimulateError).kind, (err as Error).message]).toEqual([
        'timestampOrder',
        `Timestamp is invalid. Trying to add a call at timestamp ${max + 12n}, above the largest block timestamp ${max}.`,
      ])
    }
  })
})
