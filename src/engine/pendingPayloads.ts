/**
 * Payloads received before their parent: held (bounded, oldest dropped first) until the parent is
 * stored, then handed back for execution, children before grandchildren.
 */
import type { Block } from '@ethereumjs/block'
import { bytesToHex } from '../primitives/hex.ts'

/** Most payloads held while their parent is missing. */
export const MAX_PENDING_PAYLOADS = 64

export class PendingPayloads {
  private readonly blocks = new Map<string, Block>()

  has(hashHex: string): boolean {
    return this.blocks.has(hashHex)
  }

  hold(block: Block): void {
    this.blocks.set(bytesToHex(block.hash()), block)
    if (this.blocks.size > MAX_PENDING_PAYLOADS) this.blocks.delete(this.blocks.keys().next().value!)
  }

  /** Removes and returns the held children of `parentHex`. */
  takeChildren(parentHex: string): Block[] {
    const out: Block[] = []
    for (const [key, block] of this.blocks) {
      if (bytesToHex(block.header.parentHash) !== parentHex) continue
      this.blocks.delete(key)
      out.push(block)
    }
    return out
  }

  /** Removes every held descendant of `hashHex`; returns their hashes. */
  takeDescendants(hashHex: string): string[] {
    const found: string[] = []
    const parents = [hashHex]
    for (let i = 0; i < parents.length && i <= MAX_PENDING_PAYLOADS; i++) {
      for (const child of this.takeChildren(parents[i])) {
        const key = bytesToHex(child.hash())
        found.push(key)
        parents.push(key)
      }
    }
    return found
  }
}
