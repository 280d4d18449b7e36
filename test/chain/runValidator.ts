/** Runs a BFT validator in process until its chain's head reaches a block (bounded in time). */
import type { Chain } from '../../src/chain/chain.ts'
import { sleep } from '../../src/runtime/testing.ts'

interface Validator {
  start(): void
  stop(): Promise<void>
}

/** Starts `validator`, waits until `chain`'s head is at `block` or above (at most `ms`), stops it. */
export async function runValidatorTo(validator: Validator, chain: Chain, block: bigint, ms = 30_000): Promise<void> {
  validator.start()
  const deadline = Date.now() + ms
  try {
    while (chain.head.header.number < block) {
      if (Date.now() > deadline) throw new Error(`timed out at block ${chain.head.header.number}`)
      await sleep(50)
    }
  } finally {
    await validator.stop()
  }
}
