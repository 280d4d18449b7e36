/**
 * The gas a CALL-family opcode charges for itself (not the gas it hands over), as Besu's gas
 * calculators work it out: the base cost (Frontier's 40 plus the gas asked for, 700 from Tangerine
 * Whistle, 0 from Berlin), the larger of the input's and the output's memory expansion, 9,000 for
 * value, 25,000 for a value call into an empty account (into a missing one, with or without value,
 * before Spurious Dragon), and from Berlin EIP-2929's 100 warm / 2,600 cold account access.
 *
 * vmTrace needs it for a call that cannot pay it: the EVM library throws out of gas from the
 * opcode's gas handler and reports the step with its base fee only, while Besu's trace carries this
 * cost. The handler has already warmed the target by the time the step is reported, so whether it
 * was cold is read from the journal: an address the handler warmed is one added to the journal's
 * warm set since the previous EVM event. The gas Besu adds for resolving an EIP-7702 delegation of
 * the target is apart (delegationCost): Besu charges it only once the rest is paid, and never counts
 * it in the cost its trace records for the opcode.
 */
import { type Common, Hardfork } from '@ethereumjs/common'
import type { InterpreterStep } from '@ethereumjs/evm'
import { Address } from '@ethereumjs/util'
import { bigintToPaddedBytes, bytesToHex } from '../../primitives/hex.ts'

const CALL = 0xf1
const CALLCODE = 0xf2
const ADDRESS_MASK = (1n << 160n) - 1n

/** The part of the EVM library's journal read here: the warm addresses (unprefixed hex), in the order they were warmed. */
export interface WarmJournal {
  journal: Map<string, unknown>
}

function words(offset: bigint, length: bigint): bigint {
  return length === 0n ? 0n : (offset + length + 31n) / 32n
}

function memoryCost(common: Common, w: bigint): bigint {
  return w * common.param('memoryGas') + (w * w) / common.param('quadCoefficientDivGas')
}

/** Whether `target` (unprefixed hex) is among the addresses warmed after the first `sizeBefore`. */
function wasWarmedSince(journal: WarmJournal, sizeBefore: number, target: string): boolean {
  if (journal.journal.size <= sizeBefore) return false
  let i = 0
  for (const key of journal.journal.keys()) if (i++ >= sizeBefore && key === target) return true
  return false
}

/**
 * Besu's own cost of the CALL-family opcode at step `s` (its stack before it runs); a promise when
 * the target's emptiness has to be read from the state first.
 */
export function callOwnCost(
  s: InterpreterStep,
  common: Common,
  journal: WarmJournal | undefined,
  warmSizeBefore: number,
): bigint | Promise<bigint> {
  const st = s.stack
  const n = st.length
  const op = s.opcode.code
  const hasValue = op === CALL || op === CALLCODE
  const at = (i: number) => st[n - 1 - i] ?? 0n
  const value = hasValue ? at(2) : 0n
  const args = hasValue ? 3 : 2
  const target = bigintToPaddedBytes(at(1) & ADDRESS_MASK, 20)
  const current = s.memoryWordCount
  let largest = current
  for (const w of [words(at(args), at(args + 1)), words(at(args + 2), at(args + 3))]) if (w > largest) largest = w
  let cost = common.param('callGas') + memoryCost(common, largest) - memoryCost(common, current)
  if (!common.gteHardfork(Hardfork.TangerineWhistle)) cost += at(0)
  if (value !== 0n) cost += common.param('callValueTransferGas')
  if (common.isActivatedEIP(2929)) {
    const isCold = journal !== undefined && wasWarmedSince(journal, warmSizeBefore, bytesToHex(target).slice(2))
    cost += isCold ? common.param('coldaccountaccessGas') : common.param('warmstoragereadGas')
  }
  const isSpurious = common.gteHardfork(Hardfork.SpuriousDragon)
  if (op !== CALL || (isSpurious && value === 0n)) return cost
  const newAccount = common.param('callNewAccountGas')
  // Started now, while the state is the one the opcode saw; awaited only if the call fails.
  // A failed read leaves the charge out rather than reject a promise nobody may wait for.
  return s.stateManager.getAccount(new Address(target)).then(
    (a) => (a === undefined || (isSpurious && a.isEmpty()) ? cost + newAccount : cost),
    () => cost,
  )
}

/** EIP-7702's delegation designator: 0xef0100 and the 20-byte address code runs from. */
const DELEGATION_PREFIX = [0xef, 0x01, 0x00]
const DELEGATION_LENGTH = 23

/**
 * The gas Besu charges (Prague on, EIP-7702) for resolving the delegation of the target of the
 * CALL-family opcode at step `s`: 0 for a target without a delegation, else EIP-2929's warm (100)
 * or cold (2,600) access of the delegation address (a precompile is warm). Besu takes it from the
 * frame after the opcode's own cost is paid and leaves it out of the cost it reports, while the EVM
 * library adds it to the opcode's gas. The library has warmed the delegation address by the step,
 * so whether it was cold is read from the journal as for the target (an address the step warmed);
 * a delegation to the target itself finds it warm, the target's own access having warmed it.
 */
export async function delegationCost(
  s: InterpreterStep,
  common: Common,
  journal: WarmJournal | undefined,
  warmSizeBefore: number,
): Promise<bigint> {
  if (!common.isActivatedEIP(7702)) return 0n
  const target = bigintToPaddedBytes((s.stack[s.stack.length - 2] ?? 0n) & ADDRESS_MASK, 20)
  const code = await s.stateManager.getCode(new Address(target))
  if (code.length !== DELEGATION_LENGTH || DELEGATION_PREFIX.some((b, i) => code[i] !== b)) return 0n
  const delegate = bytesToHex(code.subarray(3)).slice(2)
  const isCold =
    journal !== undefined &&
    delegate !== bytesToHex(target).slice(2) &&
    wasWarmedSince(journal, warmSizeBefore, delegate)
  return isCold ? common.param('coldaccountaccessGas') : common.param('warmstoragereadGas')
}
