/**
 * A small metrics registry: counters (optionally labelled), timers and gauges read on demand, grouped
 * by category as Besu groups its metrics (`rpc`, `blockchain`, `transaction_pool`, `storage`). It
 * only keeps figures; `debug_metrics` (and later a Prometheus endpoint) read them with `snapshot()`.
 * One process-wide registry, `metrics`, as there is one logger: every layer may count into it.
 */

type Labels = Map<string, number>

interface TimerFigures {
  count: number
  sumMs: number
  maxMs: number
}

/** Figures of one category: a number, a `{label: number}` map, or a timer's count/sum/max. */
export type MetricsSnapshot = Record<string, Record<string, number | Record<string, number>>>

export class MetricsRegistry {
  private readonly counters = new Map<string, Labels>()
  private readonly timers = new Map<string, TimerFigures>()
  private readonly gauges = new Map<string, () => number>()

  /** Adds `by` to a counter; `label` splits it (e.g. RPC calls per method). */
  inc(category: string, name: string, label = '', by = 1): void {
    const key = `${category}/${name}`
    let labels = this.counters.get(key)
    if (!labels) {
      labels = new Map()
      this.counters.set(key, labels)
    }
    labels.set(label, (labels.get(label) ?? 0) + by)
  }

  /** Records one duration. */
  observeMs(category: string, name: string, ms: number): void {
    const key = `${category}/${name}`
    const t = this.timers.get(key) ?? { count: 0, sumMs: 0, maxMs: 0 }
    t.count++
    t.sumMs += ms
    if (ms > t.maxMs) t.maxMs = ms
    this.timers.set(key, t)
  }

  /** Times `fn` (sync or async) into a timer, whether it succeeds or throws. */
  async time<T>(category: string, name: string, fn: () => Promise<T> | T): Promise<T> {
    const started = performance.now()
    try {
      return await fn()
    } finally {
      this.observeMs(category, name, performance.now() - started)
    }
  }

  /** A value read when the metrics are read (pool size, database size); replaces an earlier one. */
  gauge(category: string, name: string, read: () => number): void {
    this.gauges.set(`${category}/${name}`, read)
  }

  /** Removes every gauge whose category is `category` (a stopped node's readers). */
  dropGauges(category: string): void {
    for (const key of [...this.gauges.keys()]) if (key.startsWith(`${category}/`)) this.gauges.delete(key)
  }

  /** Every figure, by category then name; labelled counters as `{label: n}`, timers in milliseconds. */
  snapshot(): MetricsSnapshot {
    const out: MetricsSnapshot = {}
    const put = (key: string, value: number | Record<string, number>) => {
      const [category, name] = key.split('/') as [string, string]
      out[category] ??= {}
      out[category][name] = value
    }
    for (const [key, labels] of this.counters) {
      put(key, labels.size === 1 && labels.has('') ? labels.get('')! : Object.fromEntries(labels))
    }
    for (const [key, t] of this.timers) put(key, { count: t.count, sumMs: round(t.sumMs), maxMs: round(t.maxMs) })
    for (const [key, read] of this.gauges) {
      try {
        put(key, read())
      } catch {
        // A gauge whose source is gone (closed database) is left out rather than failing the read.
      }
    }
    return out
  }
}

const round = (ms: number) => Math.round(ms * 1000) / 1000

/** The process-wide registry. */
export const metrics = new MetricsRegistry()
