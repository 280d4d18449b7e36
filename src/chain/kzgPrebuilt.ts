/**
 * The mainnet KZG trusted setup loaded ahead of time. Loading it is one synchronous WebAssembly call
 * of 15 s or more (kzgSnapshot.ts); `make build` makes that call once (scripts/kzgSetup.ts) and keeps
 * the module's memory afterwards as `dist/kzg-setup.bin`, which the executable carries. Most of the
 * 16 MiB are zeros, so the file holds only the runs of other bytes (3.6 MB; `encodeKzgMemory`):
 * read back with one copy per run, where gunzip took a quarter of a second. Restoring the module
 * takes about 150 ms more. Run from the source, the file is read beside it in `dist/`; without it
 * (no build yet), or when it fails a known proof (built for another kzg-wasm), KZG is loaded the
 * slow way, in a worker.
 */
import { existsSync, readFileSync } from 'node:fs'
import { restoreKzg } from './kzgSnapshot.ts'

const MAGIC = 0x475a4b42 // "BKZG", little-endian
/** Zero bytes that end a run: shorter gaps stay inside it (the runs are few and long). */
const GAP = 256

// The point-evaluation precompile's test vector (the one call.test and kzg.test run): a valid proof.
const CHECK = {
  commitment: '0x8f59a8d2a1a625a17f3fea0fe5eb8c896db3764f3185481bc22f91b4aaffcca25f26936857bc3a7c2539ea8ec3a952b7',
  z: '0x564c0a11a0f704f4fc3e8acfe0f8245f0ad1347b378fbf96e206da11a5d36306',
  y: '0x24d25032e67a7e6a4910df5834b8fe70e6bcfeeac0352434196bdf4b2485d5a1',
  proof: '0x873033e038326e87ed3e1276fd140253fa08e9fc25fb2d9a98527fc22a2c9612fbeafdad446cbc7bcdbdcd780af2c16a',
}

interface ProofChecker {
  verifyProof(commitment: string, z: string, y: string, proof: string): boolean
}

/** The prebuilt KZG and its memory, or undefined when there is none or it fails the known proof. */
export async function readPrebuiltKzg(): Promise<{ kzg: unknown; memory: Uint8Array } | undefined> {
  const file = await prebuiltFile()
  if (file === undefined) return undefined
  try {
    return await restoreChecked(decodeKzgMemory(new Uint8Array(readFileSync(file))))
  } catch {
    return undefined
  }
}

/**
 * `memory` as the runs of bytes between its long stretches of zeros: a header (magic, the memory's
 * length, the count of runs), each run's offset and length, then the runs' bytes; u32 little-endian.
 */
export function encodeKzgMemory(memory: Uint8Array): Uint8Array {
  const runs: [number, number][] = []
  let at = 0
  while (at < memory.length) {
    while (at < memory.length && memory[at] === 0) at++
    if (at === memory.length) break
    const start = at
    let end = at
    while (at < memory.length && at - end < GAP) {
      if (memory[at] !== 0) end = at + 1
      at++
    }
    runs.push([start, end])
    at = end
  }
  const headerBytes = 12 + runs.length * 8
  const out = new Uint8Array(headerBytes + runs.reduce((sum, [s, e]) => sum + e - s, 0))
  const view = new DataView(out.buffer)
  view.setUint32(0, MAGIC, true)
  view.setUint32(4, memory.length, true)
  view.setUint32(8, runs.length, true)
  let data = headerBytes
  for (const [i, [start, end]] of runs.entries()) {
    view.setUint32(12 + i * 8, start, true)
    view.setUint32(16 + i * 8, end - start, true)
    out.set(memory.subarray(start, end), data)
    data += end - start
  }
  return out
}

/** The memory `encodeKzgMemory` encoded; throws on a file that is not one. */
export function decodeKzgMemory(file: Uint8Array): Uint8Array {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  if (file.byteLength < 12 || view.getUint32(0, true) !== MAGIC) throw new Error('not a KZG memory file')
  const memory = new Uint8Array(view.getUint32(4, true))
  const count = view.getUint32(8, true)
  let data = 12 + count * 8
  for (let i = 0; i < count; i++) {
    const offset = view.getUint32(12 + i * 8, true)
    const length = view.getUint32(16 + i * 8, true)
    if (data + length > file.byteLength || offset + length > memory.length)
      throw new Error('a truncated KZG memory file')
    memory.set(file.subarray(data, data + length), offset)
    data += length
  }
  return memory
}

/** The KZG restored from `memory` when it verifies the known proof; undefined otherwise. */
export async function restoreChecked(memory: Uint8Array): Promise<{ kzg: unknown; memory: Uint8Array } | undefined> {
  try {
    const kzg = (await restoreKzg(memory)) as ProofChecker
    return kzg.verifyProof(CHECK.commitment, CHECK.z, CHECK.y, CHECK.proof) === true ? { kzg, memory } : undefined
  } catch {
    return undefined
  }
}

async function prebuiltFile(): Promise<string | URL | undefined> {
  try {
    // @ts-expect-error a build output, imported for its embedded path (Bun's `type: 'file'`)
    const embedded = await import('../../dist/kzg-setup.bin', { with: { type: 'file' } })
    return (embedded as { default: string }).default
  } catch {
    // Deno and Node know no `type: 'file'`: the checkout's file, when built.
    const beside = new URL('../../dist/kzg-setup.bin', import.meta.url)
    return existsSync(beside) ? beside : undefined
  }
}
