/**
 * callTracer on a Frontier chain (no Homestead), where a creation that cannot pay for the code it
 * returns still succeeds and deploys no code. geth's rule (its call tracer's `processOutput`): a
 * frame whose error did not revert its changes has the error cleared and the returned bytes as its
 * output, and a creation without error names the address it made as `to`. From Homestead on the same
 * transaction fails with `contract creation code storage out of gas`.
 */

import { createBlock } from '@ethereumjs/block'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { createLegacyTx } from '@ethereumjs/tx'
import { Address, createAccount, privateToAddress } from '@ethereumjs/util'
import { runTx } from '@ethereumjs/vm'
import { computeContractAddress } from '../../chain/addresses.ts'
import { createChainCommon, normalizeGenesis } from '../../chain/genesis.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { createVm } from '../vmFactory.ts'
import { CallTracer, formatCallFrame } from './callTracer.ts'

const KEY = hexToBytes(`0x${'11'.repeat(32)}`)
const SENDER = privateToAddress(KEY)
/** Init code PUSH1 100, PUSH1 0, RETURN: returns 100 zero bytes, whose deposit costs 20,000. */
const INIT = hexToBytes('0x60646000f3')

async function traceCreate(homesteadBlock: number, gasLimit: bigint) {
  const genesis = normalizeGenesis({ config: { chainId: 1, homesteadBlock }, alloc: {} })
  const common = createChainCommon(genesis, {})
  common.setHardforkBy({ blockNumber: 1n })
  const state = new MerkleStateManager({ common })
  await state.putAccount(new Address(SENDER), createAccount({ balance: 10n ** 18n, nonce: 0n }))
  const vm = await createVm(common, state as never, { getBlockByNumber: async () => undefined })
  const tx = createLegacyTx({ nonce: 0n, gasPrice: 1n, gasLimit, data: INIT }, { common }).sign(KEY)
  const block = createBlock({ header: { number: 1n, gasLimit: 10_000_000n } }, { common })
  const tracer = new CallTracer()
  const ctx = { vm, tx, block, index: 0, sender: SENDER }
  tracer.start(ctx)
  const result = await runTx(vm, { tx, block, skipBlockGasLimitValidation: true, skipHardForkValidation: true })
  return formatCallFrame(tracer.finish(ctx, result)) as Record<string, unknown>
}

describe('callTracer: a creation that cannot pay for its code', () => {
  // Frontier intrinsic gas: 21,000 + 4 non-zero bytes at 68 + one zero byte at 4 = 21,276 (no
  // creation charge before Homestead). Execution: two pushes 6, the RETURN 12 for four words.
  const created = bytesToHex(computeContractAddress(SENDER, 0n))

  it('succeeds before Homestead: no error, the created address, the returned bytes, no deposit charged', async () => {
    const top = await traceCreate(1000, 21_276n + 18n + 1000n)
    expect(top).toMatchObject({ type: 'CREATE', to: created, output: `0x${'00'.repeat(100)}`, gasUsed: '0x532e' })
    expect(top.error).toBeUndefined()
  })

  it('fails from Homestead on, without the address or output', async () => {
    // Homestead charges 32,000 more for a creation: 53,276 intrinsic.
    const top = await traceCreate(0, 53_276n + 18n + 1000n)
    expect(top).toMatchObject({ type: 'CREATE', error: 'contract creation code storage out of gas' })
    expect(top.to).toBeUndefined()
    expect(top.output).toBeUndefined()
  })
})
