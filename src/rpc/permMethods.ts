/**
 * Besu's PERM group: the accounts and nodes allowlists of local permissioning, read and changed at
 * run time (each change written to the allowlist file), and the files read again. Without
 * `--permissions-accounts-config-file-enabled` / `--permissions-nodes-config-file-enabled` each
 * answers Besu's "has not been enabled" error. Spec: Besu's PermJsonRpcMethods; errors from its
 * RpcErrorType. The allowlists themselves: src/p2p/localPermissioning.ts.
 */
import { p } from '../jsonrpc/codecs.ts'
import { defineMethod, type RpcMethod } from '../jsonrpc/defineMethod.ts'
import { type BesuErrorKind, besuError } from '../jsonrpc/errors.ts'
import type { Allowlist, AllowlistResult } from '../p2p/localPermissioning.ts'
import type { RpcContext } from './context.ts'

type Kind = 'accounts' | 'nodes'

const NOT_ENABLED: Record<Kind, BesuErrorKind> = {
  accounts: 'accountAllowlistNotEnabled',
  nodes: 'nodeAllowlistNotEnabled',
}

/** Each refusal of a change, per list (Besu's ACCOUNT_ALLOWLIST_* and NODE_ALLOWLIST_* errors). */
const REFUSALS: Record<Kind, Record<Exclude<AllowlistResult, 'success'>, BesuErrorKind>> = {
  accounts: {
    emptyEntry: 'accountAllowlistEmptyEntry',
    invalidEntry: 'accountAllowlistInvalidEntry',
    duplicatedEntry: 'accountAllowlistDuplicatedEntry',
    existingEntry: 'accountAllowlistExistingEntry',
    absentEntry: 'accountAllowlistAbsentEntry',
    fixedNode: 'accountAllowlistAbsentEntry',
    persistFailure: 'allowlistPersistFailure',
    fileSync: 'allowlistFileSync',
  },
  nodes: {
    emptyEntry: 'nodeAllowlistEmptyEntry',
    invalidEntry: 'nodeAllowlistInvalidEntry',
    duplicatedEntry: 'nodeAllowlistDuplicatedEntry',
    existingEntry: 'nodeAllowlistExistingEntry',
    absentEntry: 'nodeAllowlistMissingEntry',
    fixedNode: 'nodeAllowlistFixedNode',
    persistFailure: 'allowlistPersistFailure',
    fileSync: 'allowlistFileSync',
  },
}

function allowlistOf(ctx: RpcContext, kind: Kind): Allowlist {
  const list = ctx.permissioning?.[kind]
  if (!list) throw besuError(NOT_ENABLED[kind])
  return list
}

/** Besu answers a change with the string "Success", or the error of what refused it. */
function answer(kind: Kind, result: AllowlistResult): string {
  if (result === 'success') return 'Success'
  throw besuError(REFUSALS[kind][result])
}

function getter(name: string, kind: Kind): RpcMethod<RpcContext> {
  return defineMethod({
    name,
    besu: { kinds: [] },
    params: [],
    handler: (ctx: RpcContext) => allowlistOf(ctx, kind).list(),
  })
}

function changer(name: string, kind: Kind, change: (list: Allowlist, entries: unknown[]) => AllowlistResult) {
  return defineMethod({
    name,
    besu: { kinds: [kind === 'accounts' ? 'account' : 'enode'] },
    params: [p.array(p.any, kind)],
    handler: (ctx: RpcContext, [entries]) => answer(kind, change(allowlistOf(ctx, kind), entries)),
  })
}

const reloadPermissionsFromFile = defineMethod({
  name: 'perm_reloadPermissionsFromFile',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => {
    const permissioning = ctx.permissioning
    if (!permissioning) throw besuError('permissioningNotEnabled')
    try {
      permissioning.reload()
    } catch {
      throw besuError('allowlistReloadError')
    }
    return 'Success'
  },
})

export const permMethods: RpcMethod<RpcContext>[] = [
  getter('perm_getAccountsAllowlist', 'accounts'),
  changer('perm_addAccountsToAllowlist', 'accounts', (l, e) => l.add(e)),
  changer('perm_removeAccountsFromAllowlist', 'accounts', (l, e) => l.remove(e)),
  getter('perm_getNodesAllowlist', 'nodes'),
  changer('perm_addNodesToAllowlist', 'nodes', (l, e) => l.add(e)),
  changer('perm_removeNodesFromAllowlist', 'nodes', (l, e) => l.remove(e)),
  reloadPermissionsFromFile,
]
