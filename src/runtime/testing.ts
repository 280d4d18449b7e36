/**
 * The unit tests' one test API on all three runtimes: `bun:test` itself under Bun, and under Node
 * and Deno the same names over `node:test` (which Deno implements too) with Jest's `expect`. Tests
 * import from here, never from `bun:test`, so `node --test` and `deno test` run them unchanged.
 * Only what the tests use is mapped: describe / it / test (with `.skip`, `.skipIf`, `.each`),
 * the four hooks, setDefaultTimeout, expect (plus Bun's `toStartWith` / `toEndWith`), and `sleep`.
 * A test that needs Bun itself says so with `needsBun`, and is skipped elsewhere with that reason.
 */
import type * as BunTest from 'bun:test'
import { runtimeName } from './runtime.ts'

type Api = Pick<
  typeof BunTest,
  'describe' | 'it' | 'test' | 'expect' | 'beforeAll' | 'afterAll' | 'beforeEach' | 'afterEach' | 'setDefaultTimeout'
>

const isBun = runtimeName() === 'bun'
const api: Api = isBun ? await import('bun:test') : await nodeTestApi()

export const { describe, it, test, expect, beforeAll, afterAll, beforeEach, afterEach, setDefaultTimeout } = api

/** Resolves after `ms` milliseconds (Bun.sleep where there is no Bun). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same cases on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Whether the test must be skipped because it needs Bun (`reason` names what of Bun): for
 * `describe.skipIf` / `it.skipIf`. Under Node and Deno the skip carries the reason.
 */
export function needsBun(reason: string): boolean {
  if (isBun) return false
  skipReasons.push(`needs Bun: ${reason}`)
  // Deno's report names a skipped test without the reason.
  console.info(`skipped under ${runtimeName()}: needs Bun: ${reason}`)
  return true
}

/**
 * Whether the test must be skipped because it needs the patched libraries (`reason` names the
 * patch): Bun's test loader and Node's module hook (src/runtime/moduleHooks.ts) apply them, Deno
 * runs the libraries unpatched.
 */
export function needsPatchedLibraries(reason: string): boolean {
  if (runtimeName() !== 'deno') return false
  skipReasons.push(`needs the patched libraries: ${reason}`)
  console.info(`skipped under deno: needs the patched libraries: ${reason}`)
  return true
}
const skipReasons: string[] = []

type Fn = () => unknown
type Options = { timeout?: number; skip?: string | boolean }
type Register = (name: string, options: Options, fn: Fn) => unknown

/** The bun:test names over node:test and Jest's expect. */
async function nodeTestApi(): Promise<Api> {
  const nodeTest = await import('node:test')
  const { expect } = await import('expect')
  expect.extend({
    toStartWith: (received: string, prefix: string) => ({
      pass: typeof received === 'string' && received.startsWith(prefix),
      message: () => `expected ${JSON.stringify(received)} to start with ${JSON.stringify(prefix)}`,
    }),
    toEndWith: (received: string, suffix: string) => ({
      pass: typeof received === 'string' && received.endsWith(suffix),
      message: () => `expected ${JSON.stringify(received)} to end with ${JSON.stringify(suffix)}`,
    }),
  })
  // bun test runs with --timeout 60000 (Makefile); the same default here.
  let defaultTimeoutMs = 60_000
  const timeoutOf = (arg: unknown): number => {
    if (typeof arg === 'number') return arg
    return (arg as { timeout?: number } | undefined)?.timeout ?? defaultTimeoutMs
  }
  const nextSkip = (): string => skipReasons.shift() ?? 'skipped'

  const withBunShape = (register: Register) => {
    const run = (name: string, fn: Fn, timeout?: unknown) =>
      register(name, { timeout: timeoutOf(timeout) }, async () => {
        await fn()
      })
    const skip = (name: string, _fn?: Fn) => register(name, { skip: nextSkip() }, () => undefined)
    const skipIf = (condition: boolean) => (condition ? skip : run)
    const each = (rows: readonly unknown[]) => (name: string, fn: (...args: never[]) => unknown, timeout?: unknown) => {
      for (const row of rows) {
        const args = (Array.isArray(row) ? row : [row]) as never[]
        run(formatName(name, args), () => fn(...args), timeout)
      }
    }
    return Object.assign(run, { skip, skipIf, if: (condition: boolean) => skipIf(!condition), each })
  }
  const itShaped = withBunShape((name, options, fn) => nodeTest.it(name, options, fn as () => Promise<void>))
  const describeShaped = withBunShape((name, options, fn) =>
    nodeTest.describe(name, { skip: options.skip }, fn as () => void),
  )
  const hook =
    (register: (fn: Fn, options: { timeout: number }) => void) =>
    (fn: Fn, timeout?: unknown): void =>
      register(async () => void (await fn()), { timeout: timeoutOf(timeout) })

  return {
    describe: describeShaped,
    it: itShaped,
    test: itShaped,
    expect,
    beforeAll: hook(nodeTest.before),
    afterAll: hook(nodeTest.after),
    beforeEach: hook(nodeTest.beforeEach),
    afterEach: hook(nodeTest.afterEach),
    setDefaultTimeout: (ms: number) => {
      defaultTimeoutMs = ms
    },
  } as unknown as Api
}

/** bun:test's `%s` / `%d` / `%p` placeholders in an `each` test's name, filled from its row. */
function formatName(name: string, args: unknown[]): string {
  let i = 0
  return name.replace(/%[sdipjo%]/g, (placeholder) => (placeholder === '%%' ? '%' : String(args[i++])))
}
