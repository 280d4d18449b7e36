/** Account: an address read in the state after one block. */
import type { Block } from '@ethereumjs/block'
import { type Account, Address } from '@ethereumjs/util'
import { bigintToPaddedBytes, bytesToBigint } from '../../primitives/hex.ts'
import type { StateManager } from '../../state/worldState.ts'
import { type GraphqlContext, invalidParams } from '../context.ts'

export class AccountAdapter {
  private account?: Promise<Account | undefined>

  private readonly state: StateManager
  private readonly addressBytes: Uint8Array

  constructor(state: StateManager, addressBytes: Uint8Array) {
    this.state = state
    this.addressBytes = addressBytes
  }

  private read(): Promise<Account | undefined> {
    this.account ??= this.state.getAccount(new Address(this.addressBytes))
    return this.account
  }

  address(): Uint8Array {
    return this.addressBytes
  }

  async balance(): Promise<bigint> {
    return (await this.read())?.balance ?? 0n
  }

  async transactionCount(): Promise<bigint> {
    return (await this.read())?.nonce ?? 0n
  }

  async code(): Promise<Uint8Array> {
    return this.state.getCode(new Address(this.addressBytes))
  }

  async storage({ slot }: { slot: Uint8Array }): Promise<Uint8Array> {
    const value = await this.state.getStorage(new Address(this.addressBytes), slot)
    return bigintToPaddedBytes(bytesToBigint(value), 32)
  }
}

/** An account in the state after `block`. */
export function accountIn(ctx: GraphqlContext, block: Block, address: Uint8Array): AccountAdapter {
  return new AccountAdapter(ctx.chain.stateAt(block), address)
}

/**
 * An account at the block an optional `block` argument names, else at `fallback`; a number past the
 * head is Besu's "Invalid params".
 */
export async function accountAtArg(
  ctx: GraphqlContext,
  blockArg: bigint | undefined | null,
  fallback: Block,
  address: Uint8Array,
): Promise<AccountAdapter> {
  if (blockArg === undefined || blockArg === null) return accountIn(ctx, fallback, address)
  const block = await ctx.chain.resolve(blockArg)
  if (!block) throw invalidParams()
  return accountIn(ctx, block, address)
}
