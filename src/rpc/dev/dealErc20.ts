/**
 * `anvil_dealERC20(token, account, amount)` and `anvil_setERC20Allowance(token, owner, spender,
 * amount)`: set an ERC-20 balance or allowance by finding the storage slot `balanceOf(account)` /
 * `allowance(owner, spender)` reads. The call is traced for the token's storage reads; each slot
 * read is tried in a simulation with the amount written there, and the first that makes the getter
 * answer the amount is written for real (a state edit, like `anvil_setStorageAt`). The total supply
 * is left alone, as in Anvil.
 */
import { call } from '../../evm/callService.ts'
import type { CallRequest } from '../../evm/callTransaction.ts'
import { traceCallRequest } from '../../evm/tracers/callRequestTracer.ts'
import { PrestateTracer } from '../../evm/tracers/prestateTracer.ts'
import { RpcError } from '../../jsonrpc/errors.ts'
import { bigintToPaddedBytes, bytesToBigint, bytesToHex, concatBytes, hexToBytes } from '../../primitives/hex.ts'
import type { DevCall } from './devMethod.ts'

const BALANCE_OF = hexToBytes('0x70a08231')
const ALLOWANCE = hexToBytes('0xdd62ed3e')

/** An address as a 32-byte ABI word. */
const abiAddress = (a: Uint8Array) => concatBytes(new Uint8Array(12), a)

export function dealErc20(call: DevCall, token: Uint8Array, account: Uint8Array, amount: bigint): Promise<void> {
  const data = concatBytes(BALANCE_OF, abiAddress(account))
  return setGetterSlot(call, token, data, amount, 'Unable to set ERC20 balance, no slot found')
}

export function setErc20Allowance(
  call: DevCall,
  token: Uint8Array,
  owner: Uint8Array,
  spender: Uint8Array,
  amount: bigint,
): Promise<void> {
  const data = concatBytes(ALLOWANCE, abiAddress(owner), abiAddress(spender))
  return setGetterSlot(call, token, data, amount, 'Unable to set ERC20 allowance, no slot found')
}

/** Writes `amount` to the slot of `token` that the getter call `data` reads it from. */
async function setGetterSlot(
  { ctx, tools }: DevCall,
  token: Uint8Array,
  data: Uint8Array,
  amount: bigint,
  notFound: string,
): Promise<void> {
  const head = ctx.chain.head
  const req: CallRequest = { to: token, data }
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
  throw new RpcError(-32000, notFound)
}
