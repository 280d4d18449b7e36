import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx'
import { hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { fees, type PoolChainView, TxPool, type TxPoolOptions } from './txPool.ts'
import { TxPoolError } from './txPoolError.ts'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
const KEYS = [
  hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'),
  hexToBytes('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'),
]
const GWEI = 10n ** 9n

function tx(key: number, nonce: number, maxFeeGwei = 10n, tipGwei = 1n, gasLimit = 21000n): TypedTransaction {
  return createFeeMarket1559Tx(
    {
      chainId: 1n,
      nonce: BigInt(nonce),
      gasLimit,
      maxFeePerGas: maxFeeGwei * GWEI,
      maxPriorityFeePerGas: tipGwei * GWEI,
      to: `0x${'11'.repeat(20)}`,
      value: 1n,
    },
    { common },
  ).sign(KEYS[key])
}

type PoolTestOptions = Partial<{ maxSize: number; balance: bigint; nonce: bigint }> &
  Pick<
    TxPoolOptions,
    | 'maxFutureBySender'
    | 'isLocalPriority'
    | 'prioritySenders'
    | 'isPermittedSender'
    | 'txFeeCap'
    | 'isReplayProtectionRequired'
  >

function pool(opts: PoolTestOptions = {}): TxPool {
  const view: PoolChainView = {
    chainId: 1n,
    headGasLimit: () => 30_000_000n,
    headBaseFee: () => GWEI,
    account: async () => ({ nonce: opts.nonce ?? 0n, balance: opts.balance ?? 10n ** 20n }),
  }
  const { maxFutureBySender, isLocalPriority, prioritySenders, isPermittedSender } = opts
  const { txFeeCap, isReplayProtectionRequired } = opts
  return new TxPool(view, {
    minGasPrice: 1000n,
    maxSize: opts.maxSize ?? 100,
    priceBumpPercent: 10,
    maxFutureBySender,
    isLocalPriority,
    prioritySenders,
    isPermittedSender,
    txFeeCap,
    isReplayProtectionRequired,
  })
}

async function refusal(p: TxPool, t: TypedTransaction): Promise<string> {
  try {
    await p.add(t)
  } catch (e) {
    if (e instanceof TxPoolError) return e.kind
    throw e
  }
  return 'accepted'
}

describe('TxPool.add', () => {
  it('files consecutive nonces as pending and a gap as queued', async () => {
    const p = pool()
    await p.add(tx(0, 0))
    await p.add(tx(0, 1))
    await p.add(tx(0, 3))
    const { pending, queued } = p.content()
    expect([...pending.values()][0].map((t) => t.nonce)).toEqual([0n, 1n])
    expect([...queued.values()][0].map((t) => t.nonce)).toEqual([3n])
    expect(p.pendingNonce([...pending.keys()][0], 0n)).toBe(2n)
  })

  it('refuses a nonce below the account nonce', async () => {
    expect(await refusal(pool({ nonce: 5n }), tx(0, 4))).toBe('nonceTooLow')
  })

  it('refuses a transaction whose upfront cost exceeds the balance', async () => {
    expect(await refusal(pool({ balance: 1000n }), tx(0, 0))).toBe('upfrontCostExceedsBalance')
  })

  it('refuses a gas limit above the block gas limit', async () => {
    expect(await refusal(pool(), tx(0, 0, 10n, 1n, 31_000_000n))).toBe('exceedsBlockGasLimit')
  })

  it('refuses gas below the intrinsic gas or, on Prague, below the calldata floor (EIP-7623)', async () => {
    const withData = (gasLimit: bigint) =>
      createFeeMarket1559Tx(
        {
          chainId: 1n,
          gasLimit,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
          to: `0x${'11'.repeat(20)}`,
          data: new Uint8Array(100).fill(1),
        },
        { common },
      ).sign(KEYS[0])
    expect(await refusal(pool(), tx(0, 0, 10n, 1n, 20_999n))).toBe('intrinsicGasExceedsLimit')
    // 100 non-zero bytes: intrinsic 21,000 + 1,600; floor 21,000 + 100 × 4 tokens × 10 = 25,000.
    expect(await refusal(pool(), withData(24_999n))).toBe('intrinsicGasExceedsLimit')
    expect(await refusal(pool(), withData(25_000n))).toBe('accepted')
  })

  it("refuses a nonce as far past the account nonce as the sender limit, as Besu (200; the sequenced pool's share)", async () => {
    const p = pool({ nonce: 3n })
    expect(await refusal(p, tx(0, 3 + 199))).toBe('accepted')
    expect(await refusal(p, tx(0, 3 + 200))).toBe('nonceTooFarInFuture')
    const sequenced = pool({ maxFutureBySender: 5 })
    for (let n = 0; n < 5; n++) expect(await refusal(sequenced, tx(1, n))).toBe('accepted')
    expect(await refusal(sequenced, tx(1, 5))).toBe('nonceTooFarInFuture')
  })

  it('refuses senders off the accounts allowlist, and keeps out of blocks those it loses', async () => {
    const allowed = new Set<string>()
    const p = pool({ isPermittedSender: (sender) => allowed.has(sender) })
    expect(await refusal(p, tx(0, 0))).toBe('txSenderNotAuthorized')
    const probe = pool()
    const sender = probe.get(await probe.add(tx(0, 0)))!.senderHex
    allowed.add(sender)
    expect(await refusal(p, tx(0, 0))).toBe('accepted')
    expect(p.executable(GWEI)).toHaveLength(1)
    allowed.delete(sender)
    expect(p.executable(GWEI)).toHaveLength(0)
  })

  it('caps the fee a local transaction may offer, and lets peers relay any (Besu)', async () => {
    const p = pool({ txFeeCap: 21000n * 10n * GWEI })
    expect(await refusal(p, tx(0, 0, 10n))).toBe('accepted')
    expect(await refusal(p, tx(1, 0, 11n))).toBe('txFeeCapExceeded')
    expect(await p.add(tx(1, 0, 11n), { isLocal: false })).toMatch(/^0x/)
  })

  it('refuses a local transaction signed for no chain id when replay protection is required', async () => {
    const old = new Common({ chain: Mainnet, hardfork: Hardfork.TangerineWhistle })
    const unprotected = createLegacyTx(
      { nonce: 0n, gasLimit: 21000n, gasPrice: 10n * GWEI, to: `0x${'11'.repeat(20)}`, value: 1n },
      { common: old },
    ).sign(KEYS[0])
    expect(await refusal(pool({ isReplayProtectionRequired: true }), unprotected)).toBe('replayProtectionRequired')
    expect(await refusal(pool(), unprotected)).toBe('accepted')
  })

  it('refuses the same transaction twice', async () => {
    const p = pool()
    await p.add(tx(0, 0))
    expect(await refusal(p, tx(0, 0))).toBe('knownTransaction')
  })

  it('replaces only with the price bump on both fees', async () => {
    const p = pool()
    await p.add(tx(0, 0, 10n, 1n))
    expect(await refusal(p, tx(0, 0, 10n, 2n))).toBe('replacementUnderpriced')
    expect(await refusal(p, tx(0, 0, 11n, 2n))).toBe('accepted')
    expect(p.size).toBe(1)
  })

  it('evicts the cheapest transaction for a better one when full, and refuses a cheaper one', async () => {
    const p = pool({ maxSize: 1 })
    await p.add(tx(0, 0, 10n))
    expect(await refusal(p, tx(1, 0, 5n))).toBe('txPoolFull')
    expect(await refusal(p, tx(1, 0, 20n))).toBe('accepted')
    expect(p.size).toBe(1)
  })
})

describe('TxPool.executable', () => {
  it('keeps each sender in nonce order and puts the higher tip first', async () => {
    const p = pool()
    await p.add(tx(0, 0, 10n, 1n))
    await p.add(tx(0, 1, 10n, 5n))
    await p.add(tx(1, 0, 10n, 3n))
    const order = p.executable(GWEI).map((t) => fees(t.tx).priorityFee)
    expect(order).toEqual([3n * GWEI, 1n * GWEI, 5n * GWEI])
  })

  it('leaves out transactions that cannot pay the base fee', async () => {
    const p = pool()
    await p.add(tx(0, 0, 2n, 1n))
    expect(p.executable(3n * GWEI)).toHaveLength(0)
  })

  it("puts local transactions (sent over JSON-RPC) before peers' whatever the tip, unless local priority is off", async () => {
    const p = pool()
    await p.add(tx(0, 0, 10n, 1n), { isLocal: true })
    await p.add(tx(1, 0, 10n, 5n), { isLocal: false })
    expect(p.executable(GWEI).map((t) => fees(t.tx).priorityFee)).toEqual([1n * GWEI, 5n * GWEI])
    const flat = pool({ isLocalPriority: false })
    await flat.add(tx(0, 0, 10n, 1n), { isLocal: true })
    await flat.add(tx(1, 0, 10n, 5n), { isLocal: false })
    expect(flat.executable(GWEI).map((t) => fees(t.tx).priorityFee)).toEqual([5n * GWEI, 1n * GWEI])
  })

  it("puts the priority senders' transactions first, even from peers", async () => {
    const probe = pool()
    const sender = probe.get(await probe.add(tx(1, 0)))!.senderHex
    const p = pool({ prioritySenders: new Set([sender]) })
    await p.add(tx(0, 0, 10n, 5n), { isLocal: false })
    await p.add(tx(1, 0, 10n, 1n), { isLocal: false })
    expect(p.executable(GWEI).map((t) => t.senderHex)[0]).toBe(sender)
  })

  it('keeps out of blocks the transactions without priority whose tip is below --min-priority-fee (Besu)', async () => {
    const p = pool()
    expect(p.minPriorityFee).toBe(0n)
    p.setMinPriorityFee(2n * GWEI)
    expect(p.minPriorityFee).toBe(2n * GWEI)
    // From a peer: the first pays too little, so the second (behind it) waits with it.
    await p.add(tx(1, 0, 10n, 1n), { isLocal: false })
    await p.add(tx(1, 1, 10n, 5n), { isLocal: false })
    // Sent over JSON-RPC: exempt, as Besu's priority transactions.
    await p.add(tx(0, 0, 10n, 1n), { isLocal: true })
    expect(p.executable(GWEI).map((t) => t.nonce)).toEqual([0n])
    expect(p.executable(GWEI)[0].isLocal).toBe(true)
    // The tip that counts is the effective one: 3 gwei offered under a max fee of 3 gwei pays 2 over a
    // base fee of 1 gwei, 1 over a base fee of 2 gwei.
    const remote = pool()
    remote.setMinPriorityFee(2n * GWEI)
    await remote.add(tx(1, 0, 3n, 3n), { isLocal: false })
    expect(remote.executable(GWEI)).toHaveLength(1)
    expect(remote.executable(2n * GWEI)).toHaveLength(0)
    p.setMinPriorityFee(0n)
    expect(p.executable(GWEI)).toHaveLength(3)
  })

  it('drops what was added before a cutoff (the sequenced pool retention)', async () => {
    const p = pool()
    await p.add(tx(0, 0))
    await p.add(tx(1, 0))
    expect(p.dropAddedBefore(Date.now() - 60_000)).toBe(0)
    expect(p.dropAddedBefore(Date.now() + 1)).toBe(2)
    expect(p.size).toBe(0)
  })

  it('forgets included transactions on a new head', async () => {
    const p = pool()
    const a = await p.add(tx(0, 0))
    await p.add(tx(0, 1))
    const sender = p.get(a)!.senderHex
    p.onNewHead([{ senderHex: sender, nonce: 0n }])
    expect(p.size).toBe(1)
    expect(p.executable(GWEI).map((t) => t.nonce)).toEqual([1n])
  })
})

describe('TxPool.resync', () => {
  it('revalidates against a head reset by hand: nonces re-read, unaffordable transactions dropped', async () => {
    const head = { nonce: 0n, balance: 10n ** 20n }
    let reset: (() => Promise<void>) | undefined
    const view: PoolChainView = {
      chainId: 1n,
      headGasLimit: () => 30_000_000n,
      headBaseFee: () => GWEI,
      account: async () => ({ ...head }),
      onHeadReset: (fn) => {
        reset = fn
      },
    }
    const p = new TxPool(view, { minGasPrice: 1000n, maxSize: 100, priceBumpPercent: 10 })
    await p.add(tx(0, 0))
    // The pool's upfront cost (as in add): gas limit × tip + value; this one's is 21,000 × 500 gwei + 1 wei.
    await p.add(tx(0, 1, 1000n, 500n))
    // The new head: the sender's nonce is back at 0 and its balance covers only the cheap one.
    head.balance = 21_000n * 500n * GWEI
    await reset?.()
    expect(p.all().map((t) => t.nonce)).toEqual([0n])
    head.nonce = 1n
    await reset?.()
    expect(p.size).toBe(0)
  })
})
