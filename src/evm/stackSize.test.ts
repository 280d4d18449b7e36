import type { Chain } from '../chain/chain.ts'
import { normalizeGenesis } from '../chain/genesis.ts'
import { openMemoryChain } from '../chain/memoryChain.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { call } from './callService.ts'
import type { StateOverrides } from './stateOverrides.ts'

const CONTRACT = hexToBytes('0x00000000000000000000000000000000c0ffee03')
/** `count` times PUSH1 1, then STOP: a frame that holds `count` stack items at its end. */
const pusher = (count: number): StateOverrides => [[CONTRACT, { code: hexToBytes(`0x${'6001'.repeat(count)}00`) }]]
/** PUSH1 1, then DUP1 `count - 1` times: the same height reached by DUP. */
const duper = (count: number): StateOverrides => [[CONTRACT, { code: hexToBytes(`0x6001${'80'.repeat(count - 1)}00`) }]]

function chainOf(config: Record<string, unknown>): Promise<Chain> {
  return openMemoryChain(
    normalizeGenesis({
      config: { chainId: 1337, londonBlock: 0, ...config },
      gasLimit: '0x1c9c380',
      difficulty: '0x1',
    }),
  )
}

async function errorOf(chain: Chain, code: StateOverrides): Promise<string | undefined> {
  const r = await call(chain, chain.head, { to: CONTRACT }, { gasCap: 0n, stateOverrides: code })
  return r.exceptionError
}

describe("Besu's evmStackSize", () => {
  it('lets a frame hold more than 1024 items up to the size, and no more', async () => {
    const chain = await chainOf({ evmStackSize: 1100 })
    for (const code of [pusher, duper]) {
      expect(await errorOf(chain, code(1025))).toBeUndefined()
      expect(await errorOf(chain, code(1100))).toBeUndefined()
      expect(await errorOf(chain, code(1101))).toBe('stack overflow')
    }
  })

  it('keeps 1024 items without it, and can lower the size', async () => {
    const plain = await chainOf({})
    expect(await errorOf(plain, pusher(1024))).toBeUndefined()
    expect(await errorOf(plain, pusher(1025))).toBe('stack overflow')
    const small = await chainOf({ evmStackSize: '0x10' })
    expect(await errorOf(small, pusher(16))).toBeUndefined()
    expect(await errorOf(small, pusher(17))).toBe('stack overflow')
  })

  it('refuses a size that is not a non-negative Java int, naming the key', async () => {
    await expect(chainOf({ evmStackSize: -1 })).rejects.toThrow('config.evmStackSize')
    await expect(chainOf({ evmStackSize: 2 ** 31 })).rejects.toThrow('config.evmStackSize is too large: 2147483648')
  })
})
