/**
 * Every transaction, header and block the libraries construct copies its Common and calls
 * `updateParams` with the same module-level params table, which deep-copies the table through JSON
 * and rebuilds the parameter cache: about a third of decoding a transaction, and most of creating a
 * header. Copies share their `_params` object, so after the first merge the result is always the
 * same; this memo reuses the built cache for a (params table, hardfork, EIPs) that was seen already.
 */
import { Common } from '@ethereumjs/common'

interface CommonInternals {
  _params: Record<string, unknown>
  _paramsCache: Record<string, unknown>
  _hardfork: string
  _eips: number[]
  _buildParamsCache(): void
}

interface Memo {
  /** Params tables already merged into this `_params`, without changing it. */
  merged: WeakSet<object>
  /** Built parameter caches by hardfork and EIP list. */
  caches: Map<string, Record<string, unknown>>
}

const memos = new WeakMap<object, Memo>()
let isInstalled = false

/** Makes `Common.updateParams` skip the merge and rebuild when they would change nothing. */
export function installCommonParamsMemo(): void {
  if (isInstalled) return
  isInstalled = true
  const original = Common.prototype.updateParams
  Common.prototype.updateParams = function (this: Common, params) {
    const c = this as unknown as CommonInternals
    const key = `${c._hardfork}|${c._eips.join(',')}`
    let memo = memos.get(c._params)
    if (memo?.merged.has(params)) {
      const cached = memo.caches.get(key)
      if (cached) {
        c._paramsCache = cached
        return
      }
      c._buildParamsCache()
      memo.caches.set(key, c._paramsCache)
      return
    }
    const before = JSON.stringify(c._params)
    original.call(this, params)
    if (!memo || JSON.stringify(c._params) !== before) {
      memo = { merged: new WeakSet(), caches: new Map() }
      memos.set(c._params, memo)
    }
    memo.merged.add(params)
    memo.caches.set(key, c._paramsCache)
  }
}
