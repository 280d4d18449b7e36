import { cliqueSigner } from '@ethereumjs/block'
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

async function importText(chain: Chain, text: string, cliqueKey?: Uint8Array): Promise<bigint[]> {
  const numbers: bigint[] = []
  let now = 1000n
  await importJsonBlocks(
    chain,
    parseJsonBlocks(text),
    () => now++,
    (b) => numbers.push(b.header.number),
    cliqueKey,
  )
  return numbers
}

/** A clique genesis whose one signer is the key `signerKey`. */
function cliqueChain(signerKey: string): Promise<Chain> {
  const signer = bytesToHex(privateToAddress(hexToBytes(signerKey))).slice(2)
  const alloc = { [SENDER]: { balance: '1000000000000000000000' } }
  const extraData = `0x${'00'.repeat(32)}${signer}${'00'.repeat(65)}`
  const config = { chainId: 7, ...FORKS, clique: { blockperiodseconds: 3, epochlength: 2 } }
  return openMemoryChain(normalizeGenesis({ config, difficulty: '0x1', gasLimit: '0x1c9c380', extraData, alloc }))
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

  it('seals the blocks of a clique chain with the node key, as Besu with its signer key', async () => {
    const nodeKey = `0x${'55'.repeat(32)}`
    const chain = await cliqueChain(nodeKey)
    const text = JSON.stringify({ blocks: [{ transactions: [transfer('0x7')] }, { transactions: [] }, {}] })
    expect(await importText(chain, text, hexToBytes(nodeKey))).toEqual([1n, 2n, 3n])
    const blocks = await Promise.all([1n, 2n, 3n].map(async (n) => (await chain.getBlockByNumber(n))!.header))
    expect(blocks.map((h) => h.difficulty)).toEqual([2n, 2n, 2n])
    // Block 2 is a checkpoint (epochlength 2) with the signer listed.
    expect(blocks.map((h) => h.extraData.length)).toEqual([97, 117, 97])
    expect(cliqueSigner(blocks[2]).toString()).toBe(bytesToHex(privateToAddress(hexToBytes(nodeKey))))
    // blockperiodseconds 3 holds although the clock moves one second a block.
    expect(blocks[2].timestamp - blocks[1].timestamp).toBe(3n)
    const state = chain.stateAt(chain.head)
    expect((await state.getAccount(new Address(hexToBytes(RECIPIENT))))?.balance).toBe(7n)
    // Fields that only ethash takes, and a chain whose signer is not the node key.
    const withExtra = JSON.stringify({ blocks: [{ extraData: '0x01', transactions: [] }] })
    await expect(importText(chain, withExtra, hexToBytes(nodeKey))).rejects.toThrow(
      'Some fields (extraData) are unsupported by the current consensus engine: clique',
    )
    await expect(importText(chain, JSON.stringify({ blocks: [{}] }), hexToBytes(KEY))).rejects.toThrow(
      'is not a clique signer',
    )
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

  it('reads short addresses left-padded, as Besu reads its own block files ("coinbase": "0x02")', () => {
    const [spec] = parseJsonBlocks(JSON.stringify({ blocks: [{ coinbase: '0x02', transactions: [transfer('0x1')] }] }))
    expect(bytesToHex(spec.coinbase!)).toBe(`0x${'00'.repeat(19)}02`)
    expect(() => parseJsonBlocks(JSON.stringify({ blocks: [{ coinbase: `0x${'11'.repeat(21)}` }] }))).toThrow(
      'blocks[0].coinbase is longer than 20 bytes',
    )
  })
})
