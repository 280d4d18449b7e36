/**
 * The temporary directories of the nodes a test process started, with their processes. A test that
 * only stops a node (to look at its data path, or to start another node on it) leaves the directory
 * in place; the preload (test/setup.ts) removes what is left once every test file has run, killing
 * any node still running first. Bun's test runner fires no `exit` event a module could hook.
 */
import { rmSync } from 'node:fs'

const started = new Map<string, { kill(signal: NodeJS.Signals): void }>()

export function trackTempDir(dir: string, proc: { kill(signal: NodeJS.Signals): void }): void {
  started.set(dir, proc)
}

export function removeTempDir(dir: string): void {
  started.delete(dir)
  rmSync(dir, { recursive: true, force: true })
}

export function removeLeftTempDirs(): void {
  for (const [dir, proc] of started) {
    try {
      proc.kill('SIGKILL')
    } catch {}
    removeTempDir(dir)
  }
}
