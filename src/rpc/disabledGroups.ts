/**
 * Besu's PERM, PRIV, EEA and PLUGINS groups, answered as Besu answers them when local permissioning,
 * privacy and plugins are off. Basalt has none of those features (their options are refused), so
 * these are its whole behaviour: a Besu configuration that lists the groups in `rpc-http-api` starts,
 * and a client calling them gets Besu's errors instead of "Method not found".
 * Spec: Besu's PermJsonRpcMethods, PrivacyApiGroupJsonRpcMethods (DisabledPrivacyRpcMethod),
 * PluginsReloadConfiguration; texts from its RpcErrorType.
 */
import { p } from '../jsonrpc/codecs.ts'
import { defineMethod, type RpcMethod } from '../jsonrpc/defineMethod.ts'
import { RpcError } from '../jsonrpc/errors.ts'
import type { RpcContext } from './context.ts'

/** A method that answers every call, whatever its params, with one error (Besu's code and text). */
function refusing(name: string, code: number, message: string): RpcMethod<RpcContext> {
  return {
    name,
    call: () => Promise.reject(new RpcError(code, message)),
  }
}

const ACCOUNTS_OFF = 'Account allowlist has not been enabled'
const NODES_OFF = 'Node allowlist has not been enabled'

export const permMethods: RpcMethod<RpcContext>[] = [
  ...['perm_addAccountsToAllowlist', 'perm_getAccountsAllowlist', 'perm_removeAccountsFromAllowlist'].map((n) =>
    refusing(n, -32000, ACCOUNTS_OFF),
  ),
  ...['perm_addNodesToAllowlist', 'perm_getNodesAllowlist', 'perm_removeNodesFromAllowlist'].map((n) =>
    refusing(n, -32000, NODES_OFF),
  ),
  refusing('perm_reloadPermissionsFromFile', -32000, 'Node/Account allowlist has not been enabled'),
]

const PRIVACY_OFF = 'Privacy is not enabled'
const PRIV_METHODS = [
  'priv_call',
  'priv_createPrivacyGroup',
  'priv_debugGetStateRoot',
  'priv_deletePrivacyGroup',
  'priv_distributeRawTransaction',
  'priv_findPrivacyGroup',
  'priv_getCode',
  'priv_getEeaTransactionCount',
  'priv_getFilterChanges',
  'priv_getFilterLogs',
  'priv_getLogs',
  'priv_getPrivacyPrecompileAddress',
  'priv_getPrivateTransaction',
  'priv_getTransactionCount',
  'priv_getTransactionReceipt',
  'priv_newFilter',
  'priv_traceTransaction',
  'priv_uninstallFilter',
  'privx_findFlexiblePrivacyGroup',
]

export const privMethods: RpcMethod<RpcContext>[] = PRIV_METHODS.map((n) => refusing(n, -50100, PRIVACY_OFF))
export const eeaMethods: RpcMethod<RpcContext>[] = [refusing('eea_sendRawTransaction', -50100, PRIVACY_OFF)]

/** No plugin is registered, so every name is unknown (Besu's -60000). */
const reloadPluginConfig = defineMethod({
  name: 'plugins_reloadPluginConfig',
  besu: { kinds: ['pluginName'] },
  params: [p.string],
  handler: (): never => {
    throw new RpcError(-60000, 'Plugin not found')
  },
})

export const pluginsMethods: RpcMethod<RpcContext>[] = [reloadPluginConfig]
