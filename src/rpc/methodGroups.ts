/** Every RPC group and its methods; the one list the dispatcher is built from. */
import type { RpcMethod } from '../jsonrpc/defineMethod.ts'
import type { MethodGroup } from '../jsonrpc/dispatcher.ts'
import { adminMethods } from './admin/adminMethods.ts'
import { ibftMethods, qbftMethods } from './bft/bftMethods.ts'
import { cliqueMethods } from './clique/cliqueMethods.ts'
import { ALWAYS_ENABLED_GROUP, type RpcContext } from './context.ts'
import { debugMethods } from './debug/debugMethods.ts'
import { getAccountInfo, infoMethods } from './dev/infoMethods.ts'
import { miningMethods } from './dev/miningMethods.ts'
import { reorgMethods } from './dev/reorgMethods.ts'
import { stateMethods as devStateMethods } from './dev/stateMethods.ts'
import { eeaMethods, pluginsMethods, privMethods } from './disabledGroups.ts'
import { blockAccessListMethods } from './eth/blockAccessListMethods.ts'
import { blockMethods } from './eth/blockMethods.ts'
import { callMethods } from './eth/callMethods.ts'
import { chainMethods } from './eth/chainMethods.ts'
import { configMethods } from './eth/configMethods.ts'
import { feeMethods } from './eth/feeMethods.ts'
import { filterMethods } from './eth/filterMethods.ts'
import { logMethods } from './eth/logMethods.ts'
import { proofMethods } from './eth/proofMethods.ts'
import { sendSyncMethods } from './eth/sendSyncMethods.ts'
import { sendTransaction, sendUnsignedTransaction } from './eth/sendTransactionMethod.ts'
import { signMethods } from './eth/signMethods.ts'
import { simulateMethods } from './eth/simulateMethods.ts'
import { stateMethods } from './eth/stateMethods.ts'
import { subscriptionMethods } from './eth/subscriptionMethods.ts'
import { txMethods } from './eth/txMethods.ts'
import { minerMethods } from './minerMethods.ts'
import { netMethods, rpcModulesMethods, web3Methods } from './netWeb3Methods.ts'
import { otsMethods } from './ots/otsMethods.ts'
import { permMethods } from './permMethods.ts'
import { testingMethods } from './testing/testingMethods.ts'
import { traceMethods } from './trace/traceMethods.ts'
import { txpoolMethods } from './txpool/txpoolMethods.ts'

/** The dev-chain test methods of one spelling (`evm_`, `hardhat_`, `anvil_`). */
function devGroup(prefix: string): RpcMethod<RpcContext>[] {
  return [...miningMethods, ...reorgMethods, ...devStateMethods, ...infoMethods].filter((m) =>
    m.name.startsWith(prefix),
  )
}

export function methodGroups(): MethodGroup<RpcContext>[] {
  return [
    {
      group: 'ETH',
      methods: [
        ...chainMethods,
        ...stateMethods,
        ...blockMethods,
        ...blockAccessListMethods,
        ...txMethods,
        ...feeMethods,
        sendTransaction,
        ...signMethods,
        ...sendSyncMethods,
        ...logMethods,
        ...filterMethods,
        ...subscriptionMethods,
        ...callMethods,
        ...proofMethods,
        ...simulateMethods,
        ...configMethods,
        getAccountInfo,
      ],
    },
    { group: 'NET', methods: netMethods },
    { group: 'WEB3', methods: web3Methods },
    { group: 'ADMIN', methods: adminMethods },
    { group: 'DEBUG', methods: debugMethods },
    { group: 'TRACE', methods: traceMethods },
    { group: 'TXPOOL', methods: txpoolMethods },
    { group: 'TESTING', methods: testingMethods },
    { group: 'MINER', methods: minerMethods },
    { group: 'EVM', methods: devGroup('evm_') },
    { group: 'HARDHAT', methods: devGroup('hardhat_') },
    { group: 'ANVIL', methods: [...devGroup('anvil_'), sendUnsignedTransaction] },
    { group: 'OTS', methods: otsMethods },
    { group: 'QBFT', methods: qbftMethods },
    { group: 'IBFT', methods: ibftMethods },
    { group: 'CLIQUE', methods: cliqueMethods },
    { group: 'PERM', methods: permMethods },
    { group: 'PRIV', methods: privMethods },
    { group: 'EEA', methods: eeaMethods },
    { group: 'PLUGINS', methods: pluginsMethods },
    { group: ALWAYS_ENABLED_GROUP, methods: rpcModulesMethods },
  ]
}
