/**
 * Running transactions whose sender has code. EIP-3607 makes a block refuse them, which keeps
 * anyone from spending from a contract address; but nobody holds a contract's key, so such a
 * transaction exists only where the node itself made it: an `eth_call` from a contract address
 * (geth and Besu skip the check for simulations) or a dev-chain transaction from an impersonated
 * contract (as Hardhat and Anvil allow). VMs that build or replay those lift the check; the block
 * importer keeps it for blocks from elsewhere.
 *
 * `runTx` (@ethereumjs/vm 10) reads the sender's account once right after `beforeTx` and checks its
 * code hash there before anything else reads it; that first read sees the empty code hash, every
 * later read (and the account written back) the real one.
 */
import { type Account, type Address, KECCAK256_NULL } from '@ethereumjs/util'
import { equalBytes } from '../primitives/hex.ts'
import type { VM } from './vmFactory.ts'

export function allowSendersWithCode(vm: VM): void {
  let sender: Address | undefined
  vm.events.on('beforeTx', (tx) => {
    sender = tx.getSenderAddress()
  })
  const state = vm.stateManager
  const getAccount = state.getAccount.bind(state)
  // Without a pending sender (every read but one per runTx; every read of a lean eth_call) the read
  // is handed on as it is, without a further async step.
  state.getAccount = (address: Address) =>
    sender === undefined ? getAccount(address) : getAccount(address).then((account) => firstRead(address, account))
  const firstRead = (address: Address, account: Account | undefined): Account | undefined => {
    if (sender === undefined || !address.equals(sender)) return account
    sender = undefined
    if (account && !equalBytes(account.codeHash, KECCAK256_NULL)) {
      Object.defineProperty(account, 'codeHash', {
        configurable: true,
        get(this: { codeHash?: Uint8Array }) {
          delete this.codeHash
          return KECCAK256_NULL
        },
      })
    }
    return account
  }
}
