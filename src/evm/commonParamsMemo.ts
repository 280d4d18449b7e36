/**
 * Every transaction, header and block the libraries construct copies its Common and calls
 * `updateParams` with the same module-level params table, which deep-copies the table through JSON
 * and rebuilds the parameter cache: about a third of decoding a transaction, and most of creating a
 * header. Copies share their `_params` object, so after the first merge the result is always the
 * same; this memo reuses the built cache for a (params table, hardfork, EIPs) that was seen already.
 *
 * `hardforks()` is behind every fork check (`gteHardfork`, `isActivatedEIP` via the fork list…); with
 * custom hardforks (our BPO forks) it builds a Set and two arrays per call. Chain params do not
 * change after construction, so the list is kept per (hardforks, customHardforks) pair.
 */
import { Common } from '@ethereumjs/common'

interface CommonInternals {
  _chainParams: { hardforks: unknown[]; customHardforks?: object }
  _params: Record<string, unknown>
  _paramsCache: Record<string, unknown>
  _hardfork: string
  _eips: number[]
  _buildParamsCache(): void
}

/** One content of a shared params table. */
interface ParamsState {
  /** The content each table merged here leads to (this one when it changes nothing). */
  next: WeakMap<object, ParamsState>
  /** Built parameter caches by hardfork and EIP list. */
  caches: Map<string, Record<string, unknown>>
}

interface Memo {
  current?: ParamsState
  /** Contents seen, by their JSON: the EVM's and the VM's tables disagree (EIP-2935's serve window),
   * so each VM construction flips the shared table between two contents, which must not reset the memo. */
  byContent: Map<string, ParamsState>
}

const memos = new WeakMap<object, Memo>()
const hardforkLists = new WeakMap<object, WeakMap<object, unknown[]>>()
let isInstalled = false

/** Makes `Common.updateParams` skip the merge and rebuild when they would change nothing. */
export function installCommonParamsMemo(): void {
  if (isInstalled) return
  isInstalled = true
  memoizeHardforks()
  const original = Common.prototype.updateParams
  Common.prototype.updateParams = function (this: Common, params) {
    const c = this as unknown as CommonInternals
    const key = `${c._hardfork}|${c._eips.join(',')}`
    let memo = memos.get(c._params)
    if (!memo) {
      memo = { byContent: new Map() }
      memos.set(c._params, memo)
    }
    const from = memo.current
    let to = from?.next.get(params)
    if (to === undefined) {
      const before = from ? undefined : JSON.stringify(c._params)
      original.call(this, params)
      const after = JSON.stringify(c._params)
      if (from === undefined && before !== undefined) memo.current = stateFor(memo, before)
      to = stateFor(memo, after)
      memo.current?.next.set(params, to)
      memo.current = to
      if (!to.caches.has(key)) to.caches.set(key, c._paramsCache)
      return
    }
    if (to !== from) original.call(this, params)
    memo.current = to
    const cached = to.caches.get(key)
    if (cached) {
      c._paramsCache = cached
      return
    }
    c._buildParamsCache()
    to.caches.set(key, c._paramsCache)
  }
}

function stateFor(memo: Memo, content: string): ParamsState {
  let state = memo.byContent.get(content)
  if (!state) {
    state = { next: new WeakMap(), caches: new Map() }
    memo.byContent.set(content, state)
  }
  return state
}

function memoizeHardforks(): void {
  const original = Common.prototype.hardforks
  Common.prototype.hardforks = function (this: Common) {
    const { hardforks, customHardforks } = (this as unknown as CommonInternals)._chainParams
    if (customHardforks === undefined) return original.call(this)
    let byCustom = hardforkLists.get(hardforks)
    if (!byCustom) {
      byCustom = new WeakMap()
      hardforkLists.set(hardforks, byCustom)
    }
    let list = byCustom.get(customHardforks)
    if (!list) {
      list = original.call(this)
      byCustom.set(customHardforks, list)
    }
    return list as ReturnType<typeof original>
  }
}
