/** JSON comparison as Besu's acceptance harnesses compare (Jackson tree equality): key order does not count. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

/** Canonical text of a JSON value: object keys sorted, so key order does not count. */
export function canonical(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k] as Json)}`)
      .join(',')}}`
  return JSON.stringify(v)
}

/** The paths (`result.payloadStatus.status`) where two JSON values differ, at most `max` of them. */
export function differences(expected: Json, actual: Json, path = '', out: string[] = [], max = 8): string[] {
  if (out.length >= max) return out
  const isObj = (v: Json) => v !== null && typeof v === 'object' && !Array.isArray(v)
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) out.push(`${path || '.'}: ${expected.length} items, got ${actual.length}`)
    else for (const [i, e] of expected.entries()) differences(e, actual[i] as Json, `${path}[${i}]`, out, max)
    return out
  }
  if (isObj(expected) && isObj(actual)) {
    const e = expected as { [k: string]: Json }
    const a = actual as { [k: string]: Json }
    for (const k of new Set([...Object.keys(e), ...Object.keys(a)])) {
      const p = path ? `${path}.${k}` : k
      if (!(k in a)) out.push(`${p}: missing, expected ${short(e[k] as Json)}`)
      else if (!(k in e)) out.push(`${p}: unexpected ${short(a[k] as Json)}`)
      else differences(e[k] as Json, a[k] as Json, p, out, max)
      if (out.length >= max) break
    }
    return out
  }
  if (canonical(expected) !== canonical(actual))
    out.push(`${path || '.'}: expected ${short(expected)}, got ${short(actual)}`)
  return out
}

function short(v: Json): string {
  const s = JSON.stringify(v) ?? 'undefined'
  return s.length > 140 ? `${s.slice(0, 137)}...` : s
}

/** A response body as JSON, or as its text when it is not JSON. */
export async function bodyJson(res: Response): Promise<Json> {
  const text = await res.text()
  try {
    return JSON.parse(text) as Json
  } catch {
    return text
  }
}
