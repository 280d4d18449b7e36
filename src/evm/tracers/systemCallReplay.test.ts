/**
 * A replayed block runs the block-level system calls as its execution did: on a chain with other
 * code at the EIP-2935 history address than the specified contract, that code runs as a system call
 * (docs/engine-api.md, "Besu's Engine acceptance cases"), so a traced transaction sees the state the
 * block's own execution gave it. The code here stores its input (the parent hash) at slot 0 when the
 * system address calls, and returns slot 0 to anyone else.
 */

import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it, needsPatchedLibraries } from '../../runtime/testing.ts'
import { SYSTEM_CONTRACTS } from '../systemContracts.ts'
import { CallTracer, formatCallFrame } from './callTracer.ts'

const HISTORY = SYSTEM_CONTRACTS[1].address
// CALLER PUSH20 system EQ PUSH1 0x22 JUMPI PUSH0 SLOAD PUSH0 MSTORE PUSH1 32 PUSH0 RETURN
// JUMPDEST PUSH0 CALLDATALOAD PUSH0 SSTORE STOP
const STORE_OR_ANSWER = `0x3373${'ff'.repeat(19)}fe14602257${'5f545f5260205ff3'}5b5f355f5500`

const isSkipped = needsPatchedLibraries('the block runs other code at the EIP-2935 address through a library patch')
let t: TracingChain
beforeAll(async () => {
  if (!isSkipped) t = await tracingChain({ [HISTORY]: { code: STORE_OR_ANSWER } })
})
afterAll(() => t?.close())

describe.skipIf(isSkipped)('replay of a block with other code at the EIP-2935 address', () => {
  it('runs that code as the block did: the traced call reads the parent hash its block stored', async () => {
    await t.send({ to: t.sender, value: 1n })
    const hash = await t.send({ to: HISTORY, gasLimit: 100_000n })
    const found = (await t.chain.findTransaction(hash))!
    const parentHash = bytesToHex(found.block.header.parentHash)
    const top = formatCallFrame(await t.trace(hash, new CallTracer())) as { output?: string; error?: string }
    expect(top.error).toBeUndefined()
    expect(top.output).toBe(parentHash)
  })
})
