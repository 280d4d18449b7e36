/**
 * A chain for block access list tests (EIP-7928): a funded sender, an account read by BALANCE, a
 * contract that reads it and writes a slot, the system contracts, on the fork `config` names; and a
 * dev-sealed block with a transfer and a call of the contract.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { addressOfKey } from '../../src/chain/devAccounts.ts'
import { parseGenesisText } from '../../src/chain/genesis.ts'
import { openMemoryChain } from '../../src/chain/memoryChain.ts'
import { SYSTEM_CONTRACTS } from '../../src/evm/systemContracts.ts'
import { poolChainView } from '../../src/node/node.ts'
import { manualClock } from '../../src/primitives/clock.ts'
import { hexToBytes } from '../../src/primitives/hex.ts'
import { DevSealer } from '../../src/producer/devSealer.ts'
import { TxPool } from '../../src/txpool/txPool.ts'

const KEY = hexToBytes('0x45a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8')
export const SENDER = addressOfKey(KEY).toLowerCase()
export const RECIPIENT: `0x${string}` = '0x00000000000000000000000000000000000000aa'
export const READ = '0x00000000000000000000000000000000000000bb'
export const CONTRACT: `0x${string}` = '0x00000000000000000000000000000000000000cc'
export const COINBASE = '0x00000000000000000000000000000000000000c0'
/** Both builder request contracts (EIP-8282) at one configured address: a stub returning nothing. */
export const BUILDERS = '0x0000000000000000000000000000000000009999'
// BALANCE(0xbb), then SSTORE(1, 0x2a): a balance read and a storage write.
const CODE = `0x73${READ.slice(2)}315060${'2a'}60015500`

export function genesisText(config: Record<string, unknown>): string {
  const alloc: Record<string, unknown> = {
    [SENDER]: { balance: '0xde0b6b3a7640000' },
    [READ]: { balance: '0x7' },
    [CONTRACT]: { code: CODE },
    [BUILDERS]: { code: '0x00' },
  }
  for (const c of SYSTEM_CONTRACTS) alloc[c.address] = { code: c.code, nonce: '0x1' }
  return JSON.stringify({
    config: {
      chainId: 7,
      terminalTotalDifficulty: 0,
      builderDepositRequestContractAddress: BUILDERS,
      builderExitRequestContractAddress: BUILDERS,
      ...config,
    },
    difficulty: '0x0',
    gasLimit: '0x1c9c380',
    baseFeePerGas: '0x7',
    alloc,
  })
}

/**
 * A chain on `genesis` and one dev-sealed block holding, in order, a transaction from SENDER to
 * each `[to, value]` (EIP-1559, 500,000 gas: Amsterdam's state gas fits; chain id 7).
 */
export async function sealCalls(genesis: string, calls: [`0x${string}`, bigint][]) {
  const chain = await openMemoryChain(parseGenesisText(genesis, 'g.json'))
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, { coinbase: hexToBytes(COINBASE), clock: manualClock(1_700_000_000_000) })
  const common = chain.commonForNextBlock()
  for (const [i, [to, value]] of calls.entries()) {
    const tx = createFeeMarket1559Tx(
      { nonce: BigInt(i), to, value, gasLimit: 500_000n, maxFeePerGas: 1000n, maxPriorityFeePerGas: 2n, chainId: 7n },
      { common },
    ).sign(KEY)
    await pool.add(tx)
  }
  const block = (await sealer.sealBlock(true))!
  return { chain, block }
}

export function sealTransferAndCall(config: Record<string, unknown>) {
  return sealCalls(genesisText(config), [
    [RECIPIENT, 5n],
    [CONTRACT, 0n],
  ])
}
