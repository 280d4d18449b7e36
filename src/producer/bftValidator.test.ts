import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import type { Chain } from '../chain/chain.ts'
import { genesisExtraData } from '../consensus/bftExtraData.ts'
import { addressOf } from '../consensus/bftHashing.ts'
import type { BftTransport } from '../consensus/qbft/transport.ts'
import { openChain, poolChainView } from '../node/node.ts'
import { systemClock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { setLogLevel } from '../primitives/logger.ts'
import { afterAll, describe, expect, it, sleep } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { BftValidator } from './bftValidator.ts'

const KEYS = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i))
const FUNDED_KEY = hexToBytes('0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63')
setLogLevel('WARN')
const dir = mkdtempSync(join(tmpdir(), 'basalt-bft-validator-'))
const closers: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const close of closers.reverse()) await close()
  rmSync(dir, { recursive: true, force: true })
})

/** An in-process transport between validators; a validator marked down neither sends nor hears. */
class Hub {
  readonly handlers = new Map<number, (code: number, data: Uint8Array) => void>()
  readonly down = new Set<number>()

  transport(id: number): BftTransport {
    return {
      broadcast: (code, data) => {
        if (this.down.has(id)) return
        for (const [to, h] of this.handlers) if (to !== id && !this.down.has(to)) setImmediate(() => h(code, data))
      },
      onMessage: (h) => {
        this.handlers.set(id, h)
        return () => this.handlers.delete(id)
      },
    }
  }
}

interface Node {
  chain: Chain
  pool: TxPool
  validator: BftValidator
}

async function network(kind: 'qbft' | 'ibft2'): Promise<{ nodes: Node[]; hub: Hub }> {
  const genesisFile = join(dir, `${kind}.json`)
  const genesis = {
    config: {
      chainId: 1337,
      berlinBlock: 0,
      londonBlock: 0,
      [kind]: { blockperiodseconds: 1, requesttimeoutseconds: 2 },
    },
    extraData: bytesToHex(genesisExtraData(kind, KEYS.map(addressOf))),
    gasLimit: '0x1fffffffffffff',
    timestamp: `0x${Math.floor(Date.now() / 1000).toString(16)}`,
    alloc: { fe3b557e8fb62b89f4916b721be55ceb828dbd73: { balance: '0xad78ebc5ac6200000' } },
  }
  writeFileSync(genesisFile, JSON.stringify(genesis))
  const hub = new Hub()
  const nodes: Node[] = []
  for (const [i, key] of KEYS.entries()) {
    const { chain, bft, close } = await openChain({ genesisFile, dataPath: ':memory:' })
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
    const validator = new BftValidator(chain, pool, bft!.tracker, {
      bft: bft!.options,
      privateKey: key,
      clock: systemClock,
      transport: hub.transport(i),
      hasPeers: true,
    })
    closers.push(close, () => validator.stop())
    nodes.push({ chain, pool, validator })
  }
  for (const n of nodes) n.validator.start()
  return { nodes, hub }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await sleep(50)
  }
}

const headOf = (n: Node) => n.chain.head.header.number

async function expectSameChain(nodes: Node[], upTo: bigint): Promise<void> {
  for (let i = 1n; i <= upTo; i++) {
    const hashes = await Promise.all(nodes.map(async (n) => bytesToHex((await n.chain.getBlockByNumber(i))!.hash())))
    expect(new Set(hashes).size).toBe(1)
  }
}

describe.each(['qbft', 'ibft2'] as const)('BftValidator, 4 %s validators in one process', (kind) => {
  it('agree on executed blocks with transactions, and go on with one validator down', async () => {
    const { nodes, hub } = await network(kind)
    const tx = createFeeMarket1559Tx(
      {
        nonce: 0n,
        to: new Uint8Array(20).fill(0xd0),
        value: 7n,
        gasLimit: 21000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: nodes[2].chain.commonForNextBlock() },
    ).sign(FUNDED_KEY)
    await nodes[2].pool.add(tx)
    await waitFor(() => nodes.every((n) => headOf(n) >= 3n), 15_000)
    await expectSameChain(nodes, 3n)
    expect(nodes.every((n) => n.chain.store.readTxLocation(tx.hash()) !== undefined)).toBe(true)
    hub.down.add(3)
    const live = nodes.slice(0, 3)
    const from = headOf(live[0])
    await waitFor(() => live.every((n) => headOf(n) >= from + 5n), 40_000)
    await expectSameChain(live, from + 5n)
    for (const n of nodes) await n.validator.stop()
  }, 60_000)
})
