import { Address, privateToAddress } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.ts'
import { normalizeGenesis } from '../chain/genesis.ts'
import { openMemoryChain } from '../chain/memoryChain.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { importJsonBlocks, parseJsonBlocks } from './jsonBlocks.ts'

const KEY = `0x${'42'.repeat(32)}`
const SENDER = bytesToHex(privateToAddress(hexToBytes(KEY)))
const RECIPIENT = `0x${'be'.repeat(20)}`
const FORKS = { berlinBlock: 0, londonBlock: 0 }

function chainWith(config: Record<string, unknown>, difficulty = '0x0'): Promise<Chain> {
  const alloc = { [SENDER]: { balance: '1000000000000000000000' } }
  return openMemoryChain(
    normalizeGenesis({ config: { chainId: 7, ...FORKS, ...config }, difficulty, gasLimit: '0x1c9c380', alloc }),
  )
}

const transfer = (value: string) => ({
  gasLimit: '0x5208',
  gasPrice: '0x3b9aca00',
  to: RECIPIENT,
  value,
  secretKey: KEY,
})

async function importText(chain: Chain, text: string): Promise<bigint[]> {
  const numbers: bigint[] = []
  let now = 1000n
  await importJsonBlocks(
    chain,
    parseJsonBlocks(text),
    () => now++,
    (b) => numbers.push(b.header.number),
  )
  return numbers
}

describe('JSON block files', () => {
  it('builds and imports proof-of-work blocks with their transactions, nonces from the parent state', async () => {
    const chain = await chainWith({ ethash: { fixeddifficulty: 100 } }, '0x64')
    const text = JSON.stringify({
      blocks: [
        { number: '0x1', coinbase: `0x${'c0'.repeat(20)}`, transactions: [transfer('0x1'), transfer('0x2')] },
        { TRANSACTIONS: [{ ...transfer('0x3'), comment: 'keys in any case' }] },
      ],
    })
    expect(await importText(chain, text)).toEqual([1n, 2n])
    expect(chain.head.header.difficulty).toBe(100n)
    // Besu sets the coinbase per block: block 2 names none, so it gets the zero address.
    expect((await chain.getBlockByNumber(1n))?.header.coinbase.toString()).toBe(`0x${'c0'.repeat(20)}`)
    expect(chain.head.header.coinbase.isZero()).toBe(true)
    const state = chain.stateAt(chain.head)
    expect((await state.getAccount(new Address(hexToBytes(RECIPIENT))))?.balance).toBe(6n)
    expect((await state.getAccount(new Address(hexToBytes(SENDER))))?.nonce).toBe(3n)
    // Signed as Besu signs them: no chain id in v.
    expect([27n, 28n]).toContain(chain.head.transactions[0].v!)
  })

  it('builds proof-of-stake blocks after the merge and refuses coinbase there, as Besu does', async () => {
    const chain = await chainWith({ terminalTotalDifficulty: 0, shanghaiTime: 0 })
    expect(await importText(chain, JSON.stringify({ blocks: [{ transactions: [transfer('0x5')] }] }))).toEqual([1n])
    expect(chain.head.header.difficulty).toBe(0n)
    const withCoinbase = JSON.stringify({ blocks: [{ coinbase: RECIPIENT, transactions: [] }] })
    await expect(importText(chain, withCoinbase)).rejects.toThrow('Some fields (coinbase) are unsupported')
  })

  it('refuses a block whose transaction cannot run', async () => {
    const chain = await chainWith({ terminalTotalDifficulty: 0 })
    const text = JSON.stringify({ blocks: [{ transactions: [transfer('0xffffffffffffffffffffffffffff')] }] })
    await expect(importText(chain, text)).rejects.toThrow('1 transaction(s) were found to be invalid')
  })

  it('names the line and column of a syntax error and the field of a bad value', () => {
    expect(() => parseJsonBlocks('{"blocks": [\n  {"transactions": x}]}')).toThrow('line 2, column 20')
    expect(() =>
      parseJsonBlocks(JSON.stringify({ blocks: [{ transactions: [{ ...transfer('0x1'), to: 'zz' }] }] })),
    ).toThrow('blocks[0].transactions[0].to must be a hex string')
  })
})
