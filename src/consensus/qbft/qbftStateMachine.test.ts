import { createBlock, createBlockHeader } from '@ethereumjs/block'
import { createLegacyTx } from '@ethereumjs/tx'
import { createChainCommon, normalizeGenesis } from '../../chain/genesis.ts'
import { manualClock } from '../../primitives/clock.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { genesisExtraData } from '../bftExtraData.ts'
import { addressOf, installBftBlockHash } from '../bftHashing.ts'
import { proposerFor } from '../bftRules.ts'
import { PREPARE, PROPOSAL, ROUND_CHANGE, signPrepare } from './messages.ts'
import { type QbftOptions, QbftStateMachine } from './qbftStateMachine.ts'

const KEYS = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i))
const VALIDATORS = KEYS.map(addressOf).sort((a, b) => Buffer.compare(a, b))
const common = createChainCommon(normalizeGenesis({ config: { chainId: 1337, qbft: {} } }), {})
installBftBlockHash(common, 'qbft')
const GENESIS_SEC = 1_700_000_000n
const genesis = createBlockHeader(
  { number: 0n, timestamp: GENESIS_SEC, extraData: genesisExtraData('qbft', VALIDATORS) },
  { common },
)

function machine(key: Uint8Array, extra: Partial<QbftOptions> = {}) {
  const clock = manualClock(Number(GENESIS_SEC) * 1000)
  const m = new QbftStateMachine({
    kind: 'qbft',
    privateKey: key,
    blockPeriodSeconds: 2,
    requestTimeoutSeconds: 4,
    clock,
    ...extra,
  })
  m.startHeight(genesis, VALIDATORS)
  return { m, clock }
}

const keyOf = (address: Uint8Array) => KEYS.find((k) => bytesToHex(addressOf(k)) === bytesToHex(address))!

describe('QbftStateMachine', () => {
  it('asks the round-0 proposer for a block once the block period has passed', () => {
    const { m, clock } = machine(keyOf(proposerFor(genesis.coinbase.bytes, VALIDATORS, 0)))
    expect(m.nextDeadlineMs()).toBe(Number(GENESIS_SEC + 2n) * 1000)
    clock.advance(1999)
    expect(m.tick()).toEqual([])
    clock.advance(1)
    expect(m.tick()).toEqual([{ type: 'createBlock', height: 1n, round: 0, timestampSec: GENESIS_SEC + 2n }])
    expect(m.nextDeadlineMs()).toBe(Number(GENESIS_SEC + 2n) * 1000 + 4000)
  })

  it('sends a round change when a round expires, each round lasting twice the one before', () => {
    const { m, clock } = machine(keyOf(proposerFor(genesis.coinbase.bytes, VALIDATORS, 2)))
    clock.advance(2000)
    expect(m.tick()).toEqual([])
    clock.advance(4000)
    const actions = m.tick()
    expect(actions.map((a) => a.type === 'broadcast' && a.message.code)).toEqual([ROUND_CHANGE])
    expect(m.round).toBe(1)
    expect(m.nextDeadlineMs()).toBe(clock.nowMs() + 8000)
  })

  it('says once per height that a validator is ahead, not for strangers', () => {
    const { m } = machine(KEYS[0])
    const prepare = (key: Uint8Array, height: bigint) => ({
      code: PREPARE as typeof PREPARE,
      signed: signPrepare({ height, round: 0, digest: new Uint8Array(32) }, key),
    })
    expect(m.receive(prepare(KEYS[1], 3n))).toEqual([{ type: 'behind', height: 3n }])
    expect(m.receive(prepare(KEYS[2], 3n))).toEqual([])
    expect(m.receive(prepare(new Uint8Array(32).fill(9), 4n))).toEqual([])
    expect(m.receive(prepare(KEYS[2], 20n))).toEqual([])
  })

  it('cues a sync once for a later height, and no more once this node reaches that height', () => {
    const { m } = machine(KEYS[0])
    const proposer1 = proposerFor(genesis.coinbase.bytes, VALIDATORS, 0)
    const header1 = createBlockHeader(
      {
        number: 1n,
        parentHash: genesis.hash(),
        timestamp: GENESIS_SEC + 2n,
        coinbase: proposer1,
        extraData: genesis.extraData,
      },
      { common },
    )
    const ahead = signPrepare({ height: 2n, round: 0, digest: new Uint8Array(32) }, keyOf(proposer1))
    expect(m.receive({ code: PREPARE, signed: ahead })).toEqual([{ type: 'behind', height: 2n }])
    // The first message of that height is the cue; the same height does not cue again.
    expect(m.receive({ code: PREPARE, signed: ahead })).toEqual([])
    expect(m.startHeight(header1, VALIDATORS)).toEqual([])
    expect(m.height).toBe(2n)
    // Messages of the height just started are no longer "ahead".
    const again = signPrepare({ height: 2n, round: 0, digest: new Uint8Array(32).fill(1) }, KEYS[1])
    expect(m.receive({ code: PREPARE, signed: again })).toEqual([])
  })
})

describe('IBFT 2.0 round 0', () => {
  const ibftCommon = createChainCommon(normalizeGenesis({ config: { chainId: 1337, ibft2: {} } }), {})
  installBftBlockHash(ibftCommon, 'ibft2')
  const ibftGenesis = createBlockHeader(
    { number: 0n, timestamp: GENESIS_SEC, extraData: genesisExtraData('ibft2', VALIDATORS) },
    { common: ibftCommon },
  )
  function ibft(key: Uint8Array, startMs: number, extra: Partial<QbftOptions> = {}) {
    const clock = manualClock(startMs)
    const m = new QbftStateMachine({
      kind: 'ibft2',
      privateKey: key,
      blockPeriodSeconds: 2,
      requestTimeoutSeconds: 4,
      clock,
      ...extra,
    })
    m.startHeight(ibftGenesis, VALIDATORS)
    return { m, clock }
  }
  const proposer = keyOf(proposerFor(ibftGenesis.coinbase.bytes, VALIDATORS, 0))
  const other = KEYS.find((k) => k !== proposer)!

  it("runs round 0's timer from the start of the height, as Besu's IBFT 2.0, not from when the block is due", () => {
    // The height starts 500 ms after the parent: round 0 ends request timeout later, whoever proposes.
    const startMs = Number(GENESIS_SEC) * 1000 + 500
    for (const key of [other, proposer]) {
      const { m, clock } = ibft(key, startMs)
      clock.advance(1500)
      const due = m.tick()
      expect(due).toEqual(
        key === proposer ? [{ type: 'createBlock', height: 1n, round: 0, timestampSec: GENESIS_SEC + 2n }] : [],
      )
      expect(m.nextDeadlineMs()).toBe(startMs + 4000)
      clock.advance(2500)
      expect(m.tick().map((a) => a.type === 'broadcast' && a.message.code)).toEqual([ROUND_CHANGE])
      expect(m.round).toBe(1)
    }
  })

  it('expires round 0 before the block is due when the request timeout is shorter than the block period', () => {
    const { m, clock } = ibft(proposer, Number(GENESIS_SEC) * 1000, { requestTimeoutSeconds: 1 })
    clock.advance(1000)
    expect(m.tick().map((a) => a.type === 'broadcast' && a.message.code)).toEqual([ROUND_CHANGE])
    clock.advance(1000)
    expect(m.tick()).toEqual([])
  })

  it('ignores emptyblockperiodseconds (QBFT only in Besu): an empty block goes out at once', () => {
    const { m, clock } = ibft(proposer, Number(GENESIS_SEC) * 1000, { emptyBlockPeriodSeconds: 10 })
    clock.advance(2000)
    m.tick()
    const empty = createBlock(
      {
        header: {
          number: 1n,
          parentHash: ibftGenesis.hash(),
          timestamp: GENESIS_SEC + 2n,
          extraData: ibftGenesis.extraData,
        },
      },
      { common: ibftCommon },
    )
    // IBFT 2.0's proposer sends no PREPARE: the proposal alone.
    expect(m.blockCreated(0, empty).map((a) => a.type === 'broadcast' && a.message.code)).toEqual([PROPOSAL])
  })
})

describe('QbftStateMachine empty-block period', () => {
  const proposerKey = keyOf(proposerFor(genesis.coinbase.bytes, VALIDATORS, 0))
  const emptyBlock = (timestamp: bigint) =>
    createBlock(
      { header: { number: 1n, parentHash: genesis.hash(), timestamp, extraData: genesis.extraData } },
      { common },
    )
  const opts = { emptyBlockPeriodSeconds: 10 }

  it('does not propose an empty block before the period ends; asks again each block period', () => {
    const { m, clock } = machine(proposerKey, opts)
    clock.advance(2000)
    expect(m.tick()).toEqual([{ type: 'createBlock', height: 1n, round: 0, timestampSec: GENESIS_SEC + 2n }])
    expect(m.blockCreated(0, emptyBlock(GENESIS_SEC + 2n))).toEqual([])
    // No round expiry meanwhile: the next deadline is one block period on.
    expect(m.nextDeadlineMs()).toBe(Number(GENESIS_SEC + 4n) * 1000)
    clock.advance(2000)
    expect(m.tick()).toEqual([{ type: 'createBlock', height: 1n, round: 0, timestampSec: GENESIS_SEC + 4n }])
    expect(m.blockCreated(0, emptyBlock(GENESIS_SEC + 4n))).toEqual([])
    clock.advance(6000)
    expect(m.tick()).toEqual([{ type: 'createBlock', height: 1n, round: 0, timestampSec: GENESIS_SEC + 10n }])
    const codes = m.blockCreated(0, emptyBlock(GENESIS_SEC + 10n)).map((a) => a.type === 'broadcast' && a.message.code)
    expect(codes).toEqual([PROPOSAL, PREPARE])
  })

  it('proposes a block with transactions at once', () => {
    const { m, clock } = machine(proposerKey, opts)
    clock.advance(2000)
    m.tick()
    const tx = createLegacyTx({ gasLimit: 21000n, gasPrice: 10n, to: VALIDATORS[0] }, { common }).sign(KEYS[0])
    const full = createBlock(
      {
        header: { number: 1n, parentHash: genesis.hash(), timestamp: GENESIS_SEC + 2n, extraData: genesis.extraData },
        transactions: [tx],
      },
      { common },
    )
    expect(m.blockCreated(0, full).map((a) => a.type === 'broadcast' && a.message.code)).toEqual([PROPOSAL, PREPARE])
  })

  it('lets round 0 of the other validators run from the end of the period', () => {
    const other = KEYS.find((k) => k !== proposerKey)!
    const { m, clock } = machine(other, opts)
    clock.advance(2000)
    expect(m.tick()).toEqual([])
    expect(m.nextDeadlineMs()).toBe(Number(GENESIS_SEC + 10n) * 1000 + 4000)
  })

  it('takes each height’s timing from timingAt', () => {
    const timingAt = (h: bigint) => ({
      blockPeriodSeconds: h >= 1n ? 5 : 2,
      emptyBlockPeriodSeconds: 0,
      requestTimeoutSeconds: 3,
    })
    const { m, clock } = machine(proposerKey, { timingAt })
    m.startHeight(genesis, VALIDATORS)
    expect(m.nextDeadlineMs()).toBe(Number(GENESIS_SEC + 5n) * 1000)
    clock.advance(5000)
    expect(m.tick()).toEqual([{ type: 'createBlock', height: 1n, round: 0, timestampSec: GENESIS_SEC + 5n }])
    expect(m.nextDeadlineMs()).toBe(Number(GENESIS_SEC + 5n) * 1000 + 3000)
  })
})
