/**
 * A block reward the library does not pay by itself (its own is ethash's): Besu's BFT
 * `blockreward`, or Ethereum Classic's ommer rewards after the first ECIP-1017 era, credited to its beneficiary after the block's transactions, withdrawals and
 * requests, so that the block's state root includes it. Balance credits commute and the system
 * calls read no beneficiary's balance, so paying it right after the last transaction (or, in a
 * block without transactions, before anything runs) leaves the same state as Besu's order.
 */
import { Account, Address } from '@ethereumjs/util'
import { type RunBlockOpts, type RunBlockResult, runBlock, type VM } from '@ethereumjs/vm'

export interface BlockReward {
  /** The account credited. */
  beneficiary: Uint8Array
  /** In wei; never 0 (a zero reward is not paid and does not touch the account, as in Besu). */
  amount: bigint
}

/** The reward of the block `number` whose coinbase is `coinbase`, or undefined when none is paid. */
export type BlockRewardRule = (number: bigint, coinbase: Uint8Array) => BlockReward | undefined

/** Credits `reward` on `vm`'s state (inside whatever journal checkpoint is open). */
export async function payBlockReward(vm: VM, reward: BlockReward): Promise<void> {
  const address = new Address(reward.beneficiary)
  const account = (await vm.stateManager.getAccount(address)) ?? new Account()
  account.balance += reward.amount
  await vm.evm.journal.putAccount(address, account)
}

/**
 * `runBlock(vm, opts)` with `rewards` paid as part of the block (its state root checked with them):
 * after the block's last transaction, or before anything runs when it has none.
 */
export async function runBlockWithReward(
  vm: VM,
  opts: RunBlockOpts,
  rewards: readonly BlockReward[],
): Promise<RunBlockResult> {
  if (rewards.length === 0) return runBlock(vm, opts)
  const count = opts.block.transactions.length
  let seen = 0
  let failure: unknown
  type Resolve = (result?: unknown) => void
  const payAll = async () => {
    for (const reward of rewards) await payBlockReward(vm, reward)
  }
  // The VM awaits a listener of two parameters until it calls the second (so no default value,
  // which would make its length 1).
  const pay = (resolve: Resolve) =>
    void payAll().then(resolve, (e) => {
      failure = e
      resolve()
    })
  type Listener = (data: unknown, resolve?: Resolve) => void
  // Before the block's checkpoint: the state manager puts into its trie only what the innermost
  // checkpoint changed when the root is taken, so the credit is written to the trie at once.
  const payAndFlush = (resolve: Resolve) =>
    pay(
      () =>
        void flush(vm).then(resolve, (e) => {
          failure ??= e
          resolve()
        }),
    )
  const onBeforeBlock: Listener = (_, resolve) => (count === 0 ? payAndFlush(resolve as Resolve) : resolve?.())
  const onAfterTx: Listener = (_, resolve) => (++seen === count ? pay(resolve as Resolve) : resolve?.())
  vm.events.on('beforeBlock', onBeforeBlock)
  vm.events.on('afterTx', onAfterTx)
  try {
    const result = await runBlock(vm, opts)
    if (failure !== undefined) throw failure
    return result
  } finally {
    vm.events.off('beforeBlock', onBeforeBlock)
    vm.events.off('afterTx', onAfterTx)
  }
}

/** Writes the state manager's cached changes to its trie (the library's Merkle state manager has it). */
async function flush(vm: VM): Promise<void> {
  await (vm.stateManager as { flush?: () => Promise<void> }).flush?.()
}
