/** The pool written at stop and read back at start, in Besu's `--tx-pool-save-file` format. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import { bytesToHex, privateToAddress } from '@ethereumjs/util'
import { normalizeGenesis } from '../chain/genesis.ts'
import { openMemoryChain } from '../chain/memoryChain.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { afterAll, describe, expect, it } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { poolChainView } from './node.ts'
import { restorePool, savePool } from './txPoolDump.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-txpool-dump-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const KEY = hexToBytes(`0x${'07'.repeat(32)}`)
const OTHER = hexToBytes(`0x${'08'.repeat(32)}`)
const genesis = normalizeGenesis({
  config: { chainId: 1337, londonBlock: 0 },
  gasLimit: '0x1c9c380',
  difficulty: '0x1',
  alloc: Object.fromEntries(
    [KEY, OTHER].map((k) => [bytesToHex(privateToAddress(k)), { balance: '1000000000000000000000' }]),
  ),
})

describe('savePool / restorePool', () => {
  it('writes each transaction as score, l or r, and base64 pooled RLP, and reads them back as they were', async () => {
    const chain = await openMemoryChain(genesis)
    const pool = () => new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
    const common = chain.commonForNextBlock()
    const typed = createFeeMarket1559Tx(
      {
        chainId: 1337n,
        nonce: 0n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
        to: `0x${'11'.repeat(20)}`,
      },
      { common },
    ).sign(KEY)
    const legacy = createLegacyTx(
      { nonce: 0n, gasLimit: 21_000n, gasPrice: 10n ** 10n, to: `0x${'22'.repeat(20)}`, value: 5n },
      { common },
    ).sign(OTHER)
    const before = pool()
    await before.add(typed, { isLocal: true })
    await before.add(legacy, { isLocal: false })
    const file = join(dir, 'txpool.dump')
    expect(savePool(before, file)).toBe(2)
    const lines = readFileSync(file, 'utf8').trim().split('\n')
    expect(lines.map((l) => l.slice(0, 4))).toEqual(['127l', '127r'])
    // Typed: the RLP string of type || payload; legacy: the RLP list.
    expect(Buffer.from(lines[0].slice(4), 'base64')[0]).toBe(0xb8)
    expect(Buffer.from(lines[1].slice(4), 'base64')[0]).toBeGreaterThanOrEqual(0xc0)

    const after = pool()
    expect(await restorePool(after, chain, file)).toEqual({ added: 2, skipped: 0 })
    expect(after.all().map((t) => [t.hash, t.isLocal])).toEqual([
      [bytesToHex(typed.hash()), true],
      [bytesToHex(legacy.hash()), false],
    ])
    // Read once: the file is gone, a second start restores nothing.
    expect(await restorePool(pool(), chain, file)).toEqual({ added: 0, skipped: 0 })
  })

  it('reads lines without a score (older Besu files) and skips what does not read or the pool refuses', async () => {
    const chain = await openMemoryChain(genesis)
    const common = chain.commonForNextBlock()
    const tx = createLegacyTx(
      { nonce: 0n, gasLimit: 21_000n, gasPrice: 10n ** 10n, to: `0x${'33'.repeat(20)}` },
      { common },
    ).sign(KEY)
    const wrongNonce = createLegacyTx({ nonce: 0n, gasLimit: 20_000n, gasPrice: 10n ** 10n }, { common }).sign(OTHER)
    const file = join(dir, 'older.dump')
    const b64 = (t: typeof tx) => Buffer.from(t.serialize()).toString('base64')
    writeFileSync(file, `l${b64(tx)}\nnot a line\nr${b64(wrongNonce)}\n-128rAAAA\n`)
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
    expect(await restorePool(pool, chain, file)).toEqual({ added: 1, skipped: 3 })
    expect(pool.all()[0].isLocal).toBe(true)
  })
})
