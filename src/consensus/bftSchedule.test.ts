import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { BftSchedule, BftScheduleError } from './bftSchedule.ts'

const A = '0x1111111111111111111111111111111111111111'
const B = '0x2222222222222222222222222222222222222222'
const C = '0x0000000000000000000000000000000000008888'

describe('BftSchedule', () => {
  it("uses Besu's defaults: 1 s blocks, no empty-block wait, 1 s request timeout, validators from headers, no reward", () => {
    const p = new BftSchedule('qbft', { qbft: {} }).at(5n)
    expect(p).toEqual({
      kind: 'qbft',
      blockPeriodSeconds: 1,
      emptyBlockPeriodSeconds: 0,
      requestTimeoutSeconds: 1,
      selection: { mode: 'blockheader' },
      blockReward: 0n,
    })
    expect(new BftSchedule('qbft', { qbft: {} }).rewardOf(5n, hexToBytes(A))).toBeUndefined()
  })

  it('reads blockreward as Besu does: 0x hex or decimal wei, a JSON number too', () => {
    const at = (v: unknown) => new BftSchedule('qbft', { qbft: { blockreward: v } }).at(1n).blockReward
    expect(at('0xde0b6b3a7640000')).toBe(10n ** 18n)
    expect(at('0XFF')).toBe(255n)
    expect(at('5000000000000000000')).toBe(5n * 10n ** 18n)
    expect(at(' 12 ')).toBe(12n)
    expect(at(7)).toBe(7n)
    expect(at('0x')).toBe(0n)
    expect(at('0x0')).toBe(0n)
  })

  it('pays the reward to miningbeneficiary, else to the coinbase, and changes both by transition', () => {
    const s = new BftSchedule('ibft2', {
      ibft2: { blockreward: '0x10', miningbeneficiary: C },
      transitions: {
        ibft2: [
          { block: 5, blockreward: '32' },
          { block: 10, miningbeneficiary: '' },
          { block: 15, blockreward: '0' },
          { block: 20, blockreward: '0x1', miningbeneficiary: B },
        ],
      },
    })
    const coinbase = hexToBytes(A)
    const reward = (n: bigint) => {
      const r = s.rewardOf(n, coinbase)
      return r && { to: bytesToHex(r.beneficiary), amount: r.amount }
    }
    expect(reward(1n)).toEqual({ to: C, amount: 16n })
    expect(reward(4n)).toEqual({ to: C, amount: 16n })
    expect(reward(5n)).toEqual({ to: C, amount: 32n })
    expect(reward(10n)).toEqual({ to: A, amount: 32n })
    // A zero reward is not paid at all (Besu skips it: the beneficiary's account is not touched).
    expect(reward(15n)).toBeUndefined()
    expect(reward(20n)).toEqual({ to: B, amount: 1n })
  })

  it('applies each transition from its block on, keeping what it does not name', () => {
    const s = new BftSchedule('qbft', {
      qbft: { blockperiodseconds: 2, emptyblockperiodseconds: 10, requesttimeoutseconds: 4 },
      transitions: {
        qbft: [
          { block: 20, validators: [B, A] },
          { block: 10, blockperiodseconds: 5 },
        ],
      },
    })
    expect(s.at(9n).blockPeriodSeconds).toBe(2)
    expect(s.at(10n)).toMatchObject({ blockPeriodSeconds: 5, emptyBlockPeriodSeconds: 10, requestTimeoutSeconds: 4 })
    expect(s.at(19n).validators).toBeUndefined()
    expect(s.at(20n).blockPeriodSeconds).toBe(5)
    expect(s.at(25n).validators!.map(bytesToHex)).toEqual([A, B])
  })

  it('switches QBFT to contract validators and back to headers', () => {
    const s = new BftSchedule('qbft', {
      qbft: {},
      transitions: {
        qbft: [
          { block: 3, validatorselectionmode: 'contract', validatorcontractaddress: C },
          { block: 6, validatorselectionmode: 'blockheader' },
        ],
      },
    })
    expect(s.at(2n).selection).toEqual({ mode: 'blockheader' })
    const at3 = s.at(3n).selection
    expect(at3.mode === 'contract' && bytesToHex(at3.address)).toBe(C)
    expect(s.at(6n).selection).toEqual({ mode: 'blockheader' })
    expect(s.hasContractValidators).toBe(true)
  })

  it('reads IBFT 2.0 transitions from transitions.ibft2', () => {
    const s = new BftSchedule('ibft2', {
      ibft2: { blockperiodseconds: 2 },
      transitions: { ibft2: [{ block: 4, blockperiodseconds: 3 }], qbft: [{ block: 2, blockperiodseconds: 9 }] },
    })
    expect([s.at(3n).blockPeriodSeconds, s.at(4n).blockPeriodSeconds]).toEqual([2, 3])
  })

  it('refuses what it cannot honour, naming the field', () => {
    const bad: [string, Record<string, unknown>, string][] = [
      ['qbft', { qbft: { blockperiodseconds: 0 } }, 'config.qbft.blockperiodseconds must be an integer of at least 1'],
      ['qbft', { qbft: { emptyblockperiodseconds: -1 } }, 'config.qbft.emptyblockperiodseconds'],
      ['qbft', { transitions: { qbft: [{ blockperiodseconds: 2 }] } }, 'config.transitions.qbft[0].block'],
      ['qbft', { transitions: { qbft: [{ block: 2, validators: ['0x12'] }] } }, 'validators[0] must be a 20-byte'],
      [
        'qbft',
        { transitions: { qbft: [{ block: 2, validatorselectionmode: 'contract' }] } },
        'validatorcontractaddress',
      ],
      [
        'qbft',
        { transitions: { qbft: [{ block: 2, validatorselectionmode: 'x' }] } },
        'must be "blockheader" or "contract"',
      ],
      ['ibft2', { transitions: { ibft2: [{ block: 2, validatorselectionmode: 'contract' }] } }, "QBFT's"],
      ['qbft', { qbft: { blockreward: '-5' } }, 'config.qbft.blockreward must be a non-negative amount of wei'],
      ['qbft', { qbft: { blockreward: '1e18' } }, 'config.qbft.blockreward must be'],
      ['qbft', { qbft: { blockreward: '0xzz' } }, 'config.qbft.blockreward must be'],
      ['ibft2', { ibft2: { blockreward: 1.5 } }, 'config.ibft2.blockreward must be'],
      ['qbft', { qbft: { miningbeneficiary: '0x12' } }, 'config.qbft.miningbeneficiary must be a 20-byte'],
      [
        'qbft',
        { transitions: { qbft: [{ block: 3, miningbeneficiary: 7 }] } },
        'config.transitions.qbft[0].miningbeneficiary must be a 20-byte',
      ],
      ['qbft', { transitions: { qbft: [{ block: 2 }, { block: 2 }] } }, 'two transitions at block 2'],
      [
        'qbft',
        { transitions: { qbft: [{ block: 2, epochlength: 10 }] } },
        'config.transitions.qbft[0].epochlength is not supported in a transition',
      ],
      [
        'ibft2',
        { transitions: { ibft2: [{ block: 2, xblockperiodmilliseconds: 500 }] } },
        'config.transitions.ibft2[0].xblockperiodmilliseconds is not supported',
      ],
    ]
    for (const [kind, config, message] of bad) {
      expect(() => new BftSchedule(kind as 'qbft', config)).toThrow(BftScheduleError)
      expect(() => new BftSchedule(kind as 'qbft', config)).toThrow(message)
    }
    expect(() => new BftSchedule('qbft', { qbft: { blockreward: '0x0' } })).not.toThrow()
  })
})
