/**
 * QBFT's validator selection by contract (Besu's `validatorselectionmode: "contract"`): the
 * validators of block n + 1 are what `getValidators()` (selector 0xb7ab4db5, returning `address[]`)
 * answers on the contract at the state after block n. Header checks are synchronous, so the set is
 * read once per parent, before the chain validates or the validator proposes on it (`prepare`), and
 * cached by parent hash.
 */
import type { BlockHeader } from '@ethereumjs/block'
import type { Chain } from '../chain/chain.ts'
import type { BftSchedule } from '../consensus/bftSchedule.ts'
import { call } from '../evm/callService.ts'
import { bytesToBigint, bytesToHex, type Hex, hexToBytes } from '../primitives/hex.ts'

/** keccak("getValidators()")[0..4]. */
export const GET_VALIDATORS_SELECTOR = hexToBytes('0xb7ab4db5')
const CACHE_SIZE = 256
const CALL_GAS = 10_000_000n

/** Decodes an ABI `address[]` return value; throws on anything else. */
export function decodeAddressArray(data: Uint8Array): Uint8Array[] {
  const word = (i: number) => {
    if (data.length < i + 32) throw new Error('getValidators() returned too little data')
    return bytesToBigint(data.subarray(i, i + 32))
  }
  const offset = Number(word(0))
  const count = Number(word(offset))
  if (count > 10_000) throw new Error(`getValidators() returned ${count} addresses`)
  const out: Uint8Array[] = []
  for (let i = 0; i < count; i++) {
    const at = offset + 32 + i * 32
    word(at)
    out.push(data.slice(at + 12, at + 32))
  }
  return out
}

export class ContractValidators {
  private readonly cache = new Map<Hex, Uint8Array[]>()
  private latest?: Uint8Array[]

  private readonly chain: Chain
  private readonly schedule: BftSchedule

  constructor(chain: Chain, schedule: BftSchedule) {
    this.chain = chain
    this.schedule = schedule
  }

  /** Reads (once) the validators of the child of `parent`, when the contract chooses them. */
  async prepare(parent: BlockHeader): Promise<void> {
    const selection = this.schedule.at(parent.number + 1n).selection
    const key = bytesToHex(parent.hash())
    if (selection.mode !== 'contract' || this.cache.has(key)) return
    const block = await this.chain.getBlockByHash(parent.hash())
    if (!block) throw new Error(`block ${key} is not stored: cannot read its validator contract`)
    const result = await call(
      this.chain,
      block,
      { to: selection.address, data: GET_VALIDATORS_SELECTOR, gas: CALL_GAS },
      {
        gasCap: CALL_GAS,
        isBalanceChecked: false,
      },
    )
    if (result.isRevert || result.exceptionError)
      throw new Error(
        `getValidators() on ${bytesToHex(selection.address)} failed: ${result.exceptionError ?? 'revert'}`,
      )
    const validators = [...new Set(decodeAddressArray(result.returnData).map(bytesToHex))].sort().map(hexToBytes)
    if (validators.length === 0) throw new Error(`getValidators() on ${bytesToHex(selection.address)} returned none`)
    this.cache.set(key, validators)
    this.latest = validators
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!)
  }

  /**
   * The validators of the child of `parent`, when the contract chooses them; undefined otherwise.
   * Block checks always `prepare` first; a caller that did not (message routing between two heads)
   * gets the set read last.
   */
  validatorsAfter(parent: BlockHeader): Uint8Array[] | undefined {
    if (this.schedule.at(parent.number + 1n).selection.mode !== 'contract') return undefined
    return this.cache.get(bytesToHex(parent.hash())) ?? this.latest ?? []
  }
}
