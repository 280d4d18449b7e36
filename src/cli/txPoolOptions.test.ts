/** `basalt run`'s transaction pool options, parsed as the executable parses them. */
import cac from 'cac'
import { describe, expect, it } from '../runtime/testing.ts'
import { protectOptionValues } from './argv.ts'
import { parseRunOptions, registerRunCommand } from './runCommand.ts'

/** The dev network's local-transaction checks: no fee cap, no replay protection required. */
const NO_CAP = { txFeeCap: 0n, isReplayProtectionRequired: false }

function txPool(args: string[]) {
  const cli = cac('basalt')
  registerRunCommand(cli)
  const { options } = cli.parse(['bun', 'basalt', ...protectOptionValues(cli, ['run', ...args])], { run: false })
  return parseRunOptions(options).txPool
}

describe('--tx-pool and its options', () => {
  it("is Besu's layered pool by default: 200 nonces ahead per sender, local transactions first", () => {
    expect(txPool([])).toEqual({
      kind: 'LAYERED',
      maxFutureBySender: 200,
      isLocalPriority: true,
      prioritySenders: [],
      ...NO_CAP,
    })
    expect(txPool(['--tx-pool-max-future-by-sender=7']).maxFutureBySender).toBe(7)
  })

  it("derives the sequenced pool's sender limit from the pool size as Besu does (ceil, at least 1)", () => {
    expect(txPool(['--tx-pool=sequenced'])).toEqual({
      kind: 'SEQUENCED',
      maxFutureBySender: 5,
      retentionMs: 13 * 3_600_000,
      isLocalPriority: true,
      prioritySenders: [],
      ...NO_CAP,
    })
    expect(txPool(['--tx-pool=SEQUENCED', '--tx-pool-limit-by-account-percentage=0.002']).maxFutureBySender).toBe(9)
    expect(txPool(['--tx-pool=legacy', '--tx-pool-limit-by-account-percentage=0.0001']).maxFutureBySender).toBe(1)
    const quickstart = ['--tx-pool=SEQUENCED', '--tx-pool-limit-by-account-percentage=0.15', '--tx-pool-max-size=100']
    expect(txPool(quickstart).maxFutureBySender).toBe(15)
    expect(txPool(['--tx-pool=sequenced', '--tx-pool-retention-hours=2']).retentionMs).toBe(7_200_000)
  })

  it("refuses each kind's options with the other, in Besu's words", () => {
    expect(() => txPool(['--tx-pool-limit-by-account-percentage=0.5'])).toThrow(
      'Could not use legacy or sequenced transaction pool options with layered implementation',
    )
    expect(() => txPool(['--tx-pool=layered', '--tx-pool-retention-hours=1'])).toThrow('with layered implementation')
    expect(() => txPool(['--tx-pool=sequenced', '--tx-pool-max-future-by-sender=3'])).toThrow(
      'Could not use layered transaction pool options with legacy or sequenced implementation',
    )
  })

  it('names a bad value', () => {
    expect(() => txPool(['--tx-pool=fifo'])).toThrow(
      "Invalid value for option --tx-pool: 'fifo' (expected LAYERED, SEQUENCED, LEGACY)",
    )
    for (const share of ['0', '1.5', 'x', '-0.1'])
      expect(() => txPool(['--tx-pool=sequenced', `--tx-pool-limit-by-account-percentage=${share}`])).toThrow(
        '--tx-pool-limit-by-account-percentage',
      )
    expect(() => txPool(['--tx-pool-max-future-by-sender=0'])).toThrow('--tx-pool-max-future-by-sender')
    expect(() => txPool(['--tx-pool-priority-senders=0x12'])).toThrow('--tx-pool-priority-senders')
  })

  it("caps a JSON-RPC transaction's fee at 1 ETH on a custom genesis (Besu's default), not on the dev network", () => {
    expect(txPool(['--genesis-file', 'g.json']).txFeeCap).toBe(10n ** 18n)
    expect(txPool(['--rpc-tx-feecap', '5000']).txFeeCap).toBe(5000n)
    expect(txPool(['--genesis-file', 'g.json', '--rpc-tx-feecap=0']).txFeeCap).toBe(0n)
    expect(() => txPool(['--rpc-tx-feecap=1e18'])).toThrow("Invalid value for option --rpc-tx-feecap: '1e18'")
    expect(txPool(['--strict-tx-replay-protection-enabled']).isReplayProtectionRequired).toBe(true)
  })

  it('reads local priority and the priority senders', () => {
    const a = `0x${'Ab'.repeat(20)}`
    const parsed = txPool(['--tx-pool-no-local-priority', `--tx-pool-priority-senders=${a}`])
    expect(parsed.isLocalPriority).toBe(false)
    expect(parsed.prioritySenders).toEqual([a.toLowerCase()])
  })
})
