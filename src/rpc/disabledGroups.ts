/**
 * Besu's PRIV, EEA and PLUGINS groups, answered as Besu answers them when privacy and plugins are
 * off. Basalt has neither feature (their options are refused), so these are its whole behaviour: a
 * Besu configuration that lists the groups in `rpc-http-api` starts, and a client calling them gets
 * Besu's errors instead of "Method not found".
 * Spec: Besu's PrivacyApiGroupJsonRpcMethods (DisabledPrivacyRpcMethod), PluginsReloadConfiguration;
 * texts from its RpcErrorType.
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
