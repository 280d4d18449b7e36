import type { Block } from '@ethereumjs/block'
import { createFeeMarket1559Tx, createTxFromRLP } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { executeBlock } from '../chain/blockImporter.ts'
import { devAccounts } from '../chain/devAccounts.ts'
import { stateRebuilds } from '../chain/stateRecovery.ts'
import { openChain, poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { StateUnavailableError } from '../state/bonsaiState.ts'
import { TxPool } from '../txpool/txPool.ts'
import { DevSealer } from './devSealer.ts'
import { DevTools } from './devTools.ts'
import { decodeDump, dumpState, encodeDump, loadState } from './stateDump.ts'

const TARGET = new Address(hexToBytes('0x000000000000000000000000000000000000c0de'))
/** Runtime code: SSTORE(0, CALLVALUE + 1). */
const STORE_CODE = hexToBytes('0x600134016000550000')

/** BONSAI with a history window of 4 blocks: a few mined blocks push a state out of it. */
/** Plain BONSAI (no state history): the states below the window are gone. */
const SMALL_WINDOW = { dataStorageFormat: 'BONSAI' as const, bonsaiHistoricalBlockLimit: 4, isBonsaiArchive: false }
/** The same window with the state history (the dev chain's default): every older state stays readable. */
const SMALL_WINDOW_HISTORY = { ...SMALL_WINDOW, isBonsaiArchive: true }

async function openTools(storage: Partial<typeof SMALL_WINDOW> = {}) {
  const { chain } = await openChain({ dataPath: ':memory:', ...storage })
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock: manualClock(1_700_000_000_000) })
  return { chain, pool, sealer, tools: new DevTools(chain, pool, sealer) }
}

function transfer(nonce: number, value: bigint, common: ReturnType<DevTools['chain']['commonForNextBlock']>) {
  return createFeeMarket1559Tx(
    { nonce, to: TARGET, value, gasLimit: 60_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
    { common },
  ).sign(hexToBytes(devAccounts()[0].privateKey))
}

describe('DevTools', () => {
  it('edits the state after the head; the next block replays from the edited state', async () => {
    const { chain, pool, sealer, tools } = await openTools()
    const head = chain.head
    await tools.setAccounts([
      [TARGET.bytes, { code: STORE_CODE, balance: 5n, storage: [[new Uint8Array(32), new Uint8Array(32).fill(1)]] }],
    ])
    expect(bytesToHex(chain.head.hash())).toBe(bytesToHex(head.hash()))
    expect(bytesToHex(chain.postStateRoot(head))).not.toBe(bytesToHex(head.header.stateRoot))
    expect((await chain.stateAt(head).getAccount(TARGET))?.balance).toBe(5n)
    await pool.add(transfer(0, 7n, chain.commonForNextBlock()))
    const block = (await sealer.sealBlock(false))!
    const slot = await chain.stateAt(block).getStorage(TARGET, new Uint8Array(32))
    expect(bytesToHex(slot)).toBe('0x08')
    // A re-execution of the block (what traces and crash recovery do) reaches the sealed root.
    await executeBlock(chain, block, head)
  })

  it('seals a transaction from a contract (an impersonated sender) that only own-block re-execution accepts', async () => {
    const { chain, pool, sealer, tools } = await openTools()
    await tools.setAccounts([[TARGET.bytes, { code: STORE_CODE, balance: 10n ** 18n }]])
    const signed = createFeeMarket1559Tx(
      { nonce: 0, to: new Address(new Uint8Array(20).fill(7)), value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n },
      { common: chain.commonForNextBlock() },
    ).sign(new Uint8Array(32).fill(9))
    const tx = createTxFromRLP(signed.serialize(), { common: signed.common, freeze: false })
    tx.getSenderAddress = () => TARGET
    await pool.add(tx)
    const parent = chain.head
    const block = (await sealer.sealBlock(false))!
    expect(block.transactions.length).toBe(1)
    expect(bytesToHex(await chain.stateAt(block).getCode(TARGET))).toBe(bytesToHex(STORE_CODE))
    await executeBlock(chain, block, parent, true)
    await expect(executeBlock(chain, block, parent)).rejects.toThrow('EIP-3607')
  })

  it('reverts blocks, state edits, the pool and the time settings to a snapshot, once', async () => {
    const { chain, pool, sealer, tools } = await openTools()
    await pool.add(transfer(0, 1n, chain.commonForNextBlock()))
    const id = await tools.snapshot()
    const start = chain.head
    sealer.time.increase(1000n)
    await sealer.mine(3n)
    await tools.setAccounts([[TARGET.bytes, { balance: 99n }]])
    expect(pool.size).toBe(0)
    expect(await tools.revert(id)).toBe(true)
    expect(bytesToHex(chain.head.hash())).toBe(bytesToHex(start.hash()))
    expect(pool.size).toBe(1)
    expect(sealer.time.offsetSec).toBe(0n)
    expect((await chain.stateAt(chain.head).getAccount(TARGET))?.balance ?? 0n).toBe(0n)
    expect(await tools.revert(id)).toBe(false)
  })

  it('dumps the state after the head and loads it into another chain', async () => {
    const a = await openTools()
    await a.tools.setAccounts([[TARGET.bytes, { code: STORE_CODE, nonce: 3n }]])
    const b = await openTools()
    await loadState(b.tools, decodeDump(encodeDump(dumpState(a.tools))))
    expect(bytesToHex(b.chain.postStateRoot(b.chain.head))).toBe(bytesToHex(a.chain.postStateRoot(a.chain.head)))
    expect(bytesToHex(await b.chain.stateAt(b.chain.head).getCode(TARGET))).toBe(bytesToHex(STORE_CODE))
  })
  it('reverts to a snapshot whatever the number of blocks mined since: the snapshot keeps its state', async () => {
    const { chain, pool, sealer, tools } = await openTools(SMALL_WINDOW)
    await sealer.mine(2n)
    await tools.setAccounts([[TARGET.bytes, { balance: 5n }]])
    const start = chain.head
    const id = await tools.snapshot()
    await pool.add(transfer(0, 7n, chain.commonForNextBlock()))
    await sealer.mine(40n)
    expect((await chain.stateAt(chain.head).getAccount(TARGET))?.balance).toBe(12n)
    // Inside the window of a snapshot, older states stay readable too.
    expect((await chain.stateAt(start).getAccount(TARGET))?.balance).toBe(5n)
    expect(await tools.revert(id)).toBe(true)
    expect(bytesToHex(chain.head.hash())).toBe(bytesToHex(start.hash()))
    expect((await chain.stateAt(chain.head).getAccount(TARGET))?.balance).toBe(5n)
    // The chain builds on it, and what it builds re-executes to its roots.
    await pool.add(transfer(0, 1n, chain.commonForNextBlock()))
    const block = (await sealer.sealBlock(false))!
    await executeBlock(chain, block, start)
    expect((await chain.stateAt(block).getAccount(TARGET))?.balance).toBe(6n)
    // The consumed snapshot no longer holds the state: the window prunes it again.
    await sealer.mine(40n)
    expect(() => chain.stateAt(start)).toThrow(StateUnavailableError)
  })

  it("goes back below the window from the state history, to the block's own state root", async () => {
    const opened = await openTools(SMALL_WINDOW_HISTORY)
    const { chain, pool, sealer, tools } = opened
    tools.markInitial()
    const genesis = chain.head
    await sealer.mine(1n)
    // Code and a slot set by the dev tools (an edited state), then a call to it in each block.
    const slot = new Uint8Array(32)
    await tools.setAccounts([[TARGET.bytes, { code: STORE_CODE, storage: [[slot, new Uint8Array(32).fill(7)]] }]])
    for (let nonce = 0; nonce < 23; nonce++) {
      await pool.add(transfer(nonce, 1n, chain.commonForNextBlock()))
      await sealer.sealBlock(false)
    }
    expect(chain.head.header.number).toBe(24n)
    const before = { ...stateRebuilds }
    // anvil_rollback / debug_setHead 20 blocks back: block 4, rebuilt from the history rows.
    await tools.rollback(20n)
    expect(stateRebuilds).toEqual({ fromHistory: before.fromHistory + 1, byReplay: before.byReplay })
    const fourth = chain.head
    expect(fourth.header.number).toBe(4n)
    expect(bytesToHex(chain.postStateRoot(fourth))).toBe(bytesToHex(fourth.header.stateRoot))
    const state = chain.stateAt(fourth)
    expect((await state.getAccount(TARGET))?.balance).toBe(3n)
    expect(bytesToHex(await state.getCode(TARGET))).toBe(bytesToHex(STORE_CODE))
    expect(bytesToHex(await state.getStorage(TARGET, slot))).toBe('0x02')
    // The chain builds on it, and what it builds re-executes to its roots.
    await pool.add(transfer(3, 10n, chain.commonForNextBlock()))
    const next = (await sealer.sealBlock(false))!
    await executeBlock(chain, next, fourth)
    expect((await chain.stateAt(next).getAccount(TARGET))?.balance).toBe(13n)
    expect(bytesToHex(await chain.stateAt(next).getStorage(TARGET, slot))).toBe('0x0b')
    // hardhat_reset / anvil_reset: back to the genesis, from the history too.
    await resetsToGenesis(opened, genesis)
    expect(stateRebuilds).toEqual({ fromHistory: before.fromHistory + 2, byReplay: before.byReplay })
  })

  it('goes back to a block whose state left the history window by rebuilding it from the genesis', async () => {
    const opened = await openTools(SMALL_WINDOW)
    const { chain, pool, sealer, tools } = opened
    tools.markInitial()
    const genesis = chain.head
    for (let nonce = 0; nonce < 12; nonce++) {
      await pool.add(transfer(nonce, 1n, chain.commonForNextBlock()))
      await sealer.sealBlock(false)
    }
    const third = (await chain.getBlockByNumber(3n))!
    expect(() => chain.stateAt(third)).toThrow(StateUnavailableError)
    // anvil_rollback / debug_setHead to block 3: its state comes back, the older ones stay gone.
    const replays = stateRebuilds.byReplay
    await tools.rollback(chain.head.header.number - 3n)
    expect(stateRebuilds.byReplay).toBe(replays + 1)
    expect(chain.head.header.number).toBe(3n)
    expect((await chain.stateAt(chain.head).getAccount(TARGET))?.balance).toBe(3n)
    const second = (await chain.getBlockByNumber(2n))!
    expect(() => chain.stateAt(second)).toThrow(StateUnavailableError)
    await pool.add(transfer(3, 10n, chain.commonForNextBlock()))
    const next = (await sealer.sealBlock(false))!
    await executeBlock(chain, next, third)
    expect((await chain.stateAt(next).getAccount(TARGET))?.balance).toBe(13n)
    // hardhat_reset / anvil_reset: back to the state at start, the genesis.
    await resetsToGenesis(opened, genesis)
  })
})

/** Mines 10 blocks, resets (hardhat_reset) to the genesis `genesis` and checks the chain builds on it. */
async function resetsToGenesis(opened: Awaited<ReturnType<typeof openTools>>, genesis: Block): Promise<void> {
  const { chain, pool, sealer, tools } = opened
  await sealer.mine(10n)
  await tools.reset()
  expect(bytesToHex(chain.head.hash())).toBe(bytesToHex(genesis.hash()))
  expect((await chain.stateAt(chain.head).getAccount(TARGET))?.balance ?? 0n).toBe(0n)
  await pool.add(transfer(0, 2n, chain.commonForNextBlock()))
  const first = (await sealer.sealBlock(false))!
  await executeBlock(chain, first, genesis)
  expect((await chain.stateAt(first).getAccount(TARGET))?.balance).toBe(2n)
}
