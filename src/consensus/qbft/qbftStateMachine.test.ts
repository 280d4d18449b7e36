import { createBlockHeader } from '@ethereumjs/block'
import { createChainCommon, normalizeGenesis } from '../../chain/genesis.ts'
import { manualClock } from '../../primitives/clock.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { genesisExtraData } from '../bftExtraData.ts'
import { addressOf, installBftBlockHash } from '../bftHashing.ts'
import { proposerFor } from '../bftRules.ts'
import { PREPARE, ROUND_CHANGE, signPrepare } from './messages.ts'
import { QbftStateMachine } from './qbftStateMachine.ts'

const KEYS = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i))
const VALIDATORS = KEYS.map(addressOf).sort((a, b) => Buffer.compare(a, b))
const common = createChainCommon(normalizeGenesis({ config: { chainId: 1337, qbft: {} } }), {})
installBftBlockHash(common, 'qbft')
const GENESIS_SEC = 1_700_000_000n
const genesis = createBlockHeader(
  { number: 0n, timestamp: GENESIS_SEC, extraData: genesisExtraData('qbft', VALIDATORS) },
  { common },
)

function machine(key: Uint8Array) {
  const clock = manualClock(Number(GENESIS_SEC) * 1000)
  const m = new QbftStateMachine({
    kind: 'qbft',
    privateKey: key,
    blockPeriodSeconds: 2,
    requestTimeoutSeconds: 4,
    clock,
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
})
