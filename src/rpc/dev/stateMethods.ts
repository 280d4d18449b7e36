/**
 * State and settings the tests change from outside: balances, nonces, code and storage of any
 * account, the coinbase, the next base fee, the block gas limit, the pool's minimum price, dropping
 * pooled transactions, and impersonation (which `eth_sendTransaction` honours). State edits land on
 * the state after the head (see `producer/devTools.ts` for how they persist and replay).
 */
import { Address, MAX_UINT64 } from '@ethereumjs/util'
import { p } from '../../jsonrpc/codecs.ts'
import type { RpcMethod } from '../../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { setLogLevel } from '../../primitives/logger.ts'
import type { RpcContext } from '../context.ts'
import { dealErc20, setErc20Allowance } from './dealErc20.ts'
import { amount, devMethod, word } from './devMethod.ts'

/** Every spelling of every method below; `methodGroups` files them under EVM, HARDHAT and ANVIL. */
export const stateMethods: RpcMethod<RpcContext>[] = []

devMethod(
  stateMethods,
  { hardhat: 'hardhat_setBalance', anvil: 'anvil_setBalance' },
  [p.address, amount('balance')],
  async ({ tools }, [address, balance]) => {
    await tools.setAccounts([[address, { balance }]])
  },
)

devMethod(
  stateMethods,
  { anvil: 'anvil_addBalance' },
  [p.address, amount('balance')],
  async ({ tools }, [address, wei]) => {
    await tools.addBalance(address, wei)
  },
)

devMethod(
  stateMethods,
  { anvil: 'anvil_dealERC20' },
  [p.named('token', p.address), p.address, amount('amount')],
  async (call, [token, account, value]) => {
    await dealErc20(call, token, account, value)
  },
)

devMethod(
  stateMethods,
  { anvil: 'anvil_setERC20Allowance' },
  [p.named('token', p.address), p.named('owner', p.address), p.named('spender', p.address), amount('amount')],
  async (call, [token, owner, spender, value]) => {
    await setErc20Allowance(call, token, owner, spender, value)
  },
)

devMethod(
  stateMethods,
  { hardhat: 'hardhat_setCode', anvil: 'anvil_setCode' },
  [p.address, p.named('code', p.data)],
  async ({ tools }, [address, code]) => {
    await tools.setAccounts([[address, { code }]])
  },
)

devMethod(
  stateMethods,
  { hardhat: 'hardhat_setNonce', anvil: 'anvil_setNonce', evm: 'evm_setAccountNonce' },
  [p.address, amount('nonce')],
  async ({ tools, flavor }, [address, nonce]) => {
    // An account's nonce is a uint64 (EIP-2681); at 2^64 - 1 the account can send nothing more.
    if (nonce > MAX_UINT64) throw new InvalidParamsError(`Invalid params: nonce ${nonce} does not fit 64 bits`)
    if (flavor === 'hardhat') {
      const current = (await tools.chain.stateAt(tools.chain.head).getAccount(new Address(address)))?.nonce ?? 0n
      if (nonce < current)
        throw new InvalidParamsError(`New nonce (${nonce}) must not be smaller than the existing nonce (${current})`)
    }
    await tools.setAccounts([[address, { nonce }]])
  },
)

/** Anvil answers `true` here, unlike its other setters. */
devMethod(
  stateMethods,
  { hardhat: 'hardhat_setStorageAt', anvil: 'anvil_setStorageAt' },
  [p.address, word('slot'), word('value')],
  async ({ tools }, [address, slot, value]) => {
    await tools.setAccounts([[address, { storage: [[slot, value]] }]])
    return true
  },
)

devMethod(
  stateMethods,
  { hardhat: 'hardhat_setCoinbase', anvil: 'anvil_setCoinbase' },
  [p.address],
  ({ tools }, [address]) => {
    tools.sealer.coinbase = address
  },
)

devMethod(
  stateMethods,
  { hardhat: 'hardhat_setNextBlockBaseFeePerGas', anvil: 'anvil_setNextBlockBaseFeePerGas' },
  [amount('baseFee')],
  ({ tools }, [fee]) => {
    if (tools.chain.head.header.baseFeePerGas === undefined)
      throw new InvalidParamsError('Invalid params: the chain has no base fee (before London)')
    tools.sealer.nextBaseFee = fee
  },
)

devMethod(stateMethods, { hardhat: 'hardhat_setPrevRandao' }, [word('prevRandao')], ({ tools }, [value]) => {
  tools.sealer.nextPrevRandao = value
})

/** Anvil's and Hardhat's switch for their request log: off keeps only warnings and errors. */
devMethod(
  stateMethods,
  { hardhat: 'hardhat_setLoggingEnabled', anvil: 'anvil_setLoggingEnabled' },
  [p.bool],
  (_call, [isOn]) => {
    setLogLevel(isOn ? 'INFO' : 'WARN')
  },
)

/** Anvil answers `true` under both names. */
devMethod(
  stateMethods,
  { evm: 'evm_setBlockGasLimit', anvil: 'anvil_setBlockGasLimit' },
  [amount('gasLimit')],
  ({ tools }, [gasLimit]) => {
    if (gasLimit < 5000n) throw new InvalidParamsError('Invalid params: the gas limit must be at least 5000')
    tools.sealer.gasLimit = gasLimit
    return true
  },
)

devMethod(
  stateMethods,
  { hardhat: 'hardhat_setMinGasPrice', anvil: 'anvil_setMinGasPrice' },
  [amount('gasPrice')],
  ({ ctx }, [wei]) => {
    ctx.pool.setMinGasPrice(wei)
  },
)

devMethod(
  stateMethods,
  { hardhat: 'hardhat_impersonateAccount', anvil: 'anvil_impersonateAccount' },
  [p.address],
  ({ tools }, [address]) => {
    tools.impersonated.add(bytesToHex(address))
  },
)

devMethod(
  stateMethods,
  { hardhat: 'hardhat_stopImpersonatingAccount', anvil: 'anvil_stopImpersonatingAccount' },
  [p.address],
  ({ tools }, [address]) => {
    tools.impersonated.delete(bytesToHex(address))
  },
)

devMethod(stateMethods, { anvil: 'anvil_autoImpersonateAccount' }, [p.bool], ({ tools }, [isOn]) => {
  tools.isAutoImpersonating = isOn
})

/** Hardhat answers whether it dropped one; Anvil the hash it dropped, or null. */
devMethod(
  stateMethods,
  { hardhat: 'hardhat_dropTransaction', anvil: 'anvil_dropTransaction' },
  [p.hash],
  ({ ctx, flavor }, [hash]) => {
    const key = bytesToHex(hash)
    const isPooled = ctx.pool.get(key) !== undefined
    ctx.pool.drop(key)
    if (flavor === 'hardhat') return isPooled
    return isPooled ? key : null
  },
)

devMethod(stateMethods, { anvil: 'anvil_dropAllTransactions' }, [], ({ ctx }) => {
  ctx.pool.clear()
})

/** Drops every pooled transaction of one sender. */
devMethod(stateMethods, { anvil: 'anvil_removePoolTransactions' }, [p.address], ({ ctx }, [address]) => {
  const sender = bytesToHex(address)
  for (const t of ctx.pool.all()) if (t.senderHex === sender) ctx.pool.drop(t.hash)
})
