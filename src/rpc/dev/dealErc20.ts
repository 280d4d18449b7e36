/**
 * `anvil_dealERC20(token, account, amount)`: sets an ERC-20 balance by finding the storage slot
 * `balanceOf(account)` reads. The call is traced for the token's storage reads; each slot read is
 * tried in a simulation with the amount written there, and the first that makes `balanceOf` answer
 * the amount is written for real (a state edit, like `anvil_setStorageAt`). The total supply is
 * left alone, as in Anvil.
 */
import { call } from '../../evm/callService.ts'
import type { CallRequest } from '../../evm/callTransaction.ts'
import { traceCallRequest } from '../../evm/tracers/callRequestTracer.ts'
import { PrestateTracer } from '../../evm/tracers/prestateTracer.ts'
import { RpcError } from '../../jsonrpc/errors.ts'
import { bigintToPaddedBytes, bytesToBigint, bytesToHex, concatBytes, hexToBytes } from '../../primitives/hex.ts'
import type { DevCall } from './devMethod.ts'

const BALANCE_OF = hexToBytes('0x70a08231')

export async function dealErc20(
  { ctx, tools }: DevCall,
  token: Uint8Array,
  account: Uint8Array,
  amount: bigint,
): Promise<void> {
  const head = ctx.chain.head
  const req: CallRequest = { to: token, data: concatBytes(BALANCE_OF, new Uint8Array(12), account) }
  const opts = { gasCap: ctx.settings.rpcGasCap }
  const pre = (await traceCallRequest(ctx.chain, head, req, opts, new PrestateTracer())) as Record<
    string,
    { storage?: Record<string, string> }
  >
  const value = bigintToPaddedBytes(amount, 32)
  for (const slotHex of Object.keys(pre[bytesToHex(token)]?.storage ?? {})) {
    const slot = hexToBytes(slotHex)
    const tried = await call(ctx.chain, head, req, {
      ...opts,
      stateOverrides: [[token, { stateDiff: [[slot, value]] }]],
    })
    if (tried.isRevert || tried.exceptionError || tried.returnData.length !== 32) continue
    if (bytesToBigint(tried.returnData) !== amount) continue
    await tools.setAccounts([[token, { storage: [[slot, value]] }]])
    return
  }
  throw new RpcError(-32000, 'Unable to set ERC20 balance, no slot found')
}
