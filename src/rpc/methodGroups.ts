/** Every RPC group and its methods; the one list the dispatcher is built from. */
import type { MethodGroup } from '../jsonrpc/dispatcher.ts'
import { adminMethods } from './admin/adminMethods.ts'
import { ibftMethods, qbftMethods } from './bft/bftMethods.ts'
import type { RpcContext } from './context.ts'
import { debugMethods } from './debug/debugMethods.ts'
import { blockMethods } from './eth/blockMethods.ts'
import { callMethods } from './eth/callMethods.ts'
import { chainMethods } from './eth/chainMethods.ts'
import { configMethods } from './eth/configMethods.ts'
import { feeMethods } from './eth/feeMethods.ts'
import { filterMethods } from './eth/filterMethods.ts'
import { logMethods } from './eth/logMethods.ts'
import { proofMethods } from './eth/proofMethods.ts'
import { sendTransaction } from './eth/sendTransactionMethod.ts'
import { simulateMethods } from './eth/simulateMethods.ts'
import { stateMethods } from './eth/stateMethods.ts'
import { subscriptionMethods } from './eth/subscriptionMethods.ts'
import { txMethods } from './eth/txMethods.ts'
import { netMethods, rpcModulesMethods, web3Methods } from './netWeb3Methods.ts'
import { testingMethods } from './testing/testingMethods.ts'
import { traceMethods } from './trace/traceMethods.ts'
import { txpoolMethods } from './txpool/txpoolMethods.ts'

/** `rpc_modules` is always enabled. */
export const ALWAYS_ENABLED_GROUP = 'RPC'

export function methodGroups(): MethodGroup<RpcContext>[] {
  return [
    {
      group: 'ETH',
      methods: [
        ...chainMethods,
        ...stateMethods,
        ...blockMethods,
        ...txMethods,
        ...feeMethods,
        sendTransaction,
        ...logMethods,
        ...filterMethods,
        ...subscriptionMethods,
        ...callMethods,
        ...proofMethods,
        ...simulateMethods,
        ...configMethods,
      ],
    },
    { group: 'NET', methods: netMethods },
    { group: 'WEB3', methods: web3Methods },
    { group: 'ADMIN', methods: adminMethods },
    { group: 'DEBUG', methods: debugMethods },
    { group: 'TRACE', methods: traceMethods },
    { group: 'TXPOOL', methods: txpoolMethods },
    { group: 'TESTING', methods: testingMethods },
    { group: 'QBFT', methods: qbftMethods },
    { group: 'IBFT', methods: ibftMethods },
    { group: ALWAYS_ENABLED_GROUP, methods: rpcModulesMethods },
  ]
}
