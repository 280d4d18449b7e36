/**
 * The mainnet KZG trusted setup loaded ahead of time. Loading it is one synchronous WebAssembly call
 * of 15 s or more (kzgSnapshot.ts); `make build` makes that call once (scripts/kzgSetup.ts) and keeps
 * the module's memory afterwards, gzipped (3 MiB of 16 MiB, most of it zeros), as `dist/kzg-setup.gz`,
 * which the executable carries. Restoring it takes about 100 ms. Run from the source, the file is
 * read beside it in `dist/`; without it (no build yet), or when it fails a known proof (built for
 * another kzg-wasm), KZG is loaded the slow way, in a worker.
 */
import { existsSync, readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { restoreKzg } from './kzgSnapshot.ts'

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
  return restoreChecked(new Uint8Array(gunzipSync(readFileSync(file))))
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
    const embedded = await import('../../dist/kzg-setup.gz', { with: { type: 'file' } })
    return (embedded as { default: string }).default
  } catch {
    // Deno and Node know no `type: 'file'`: the checkout's file, when built.
    const beside = new URL('../../dist/kzg-setup.gz', import.meta.url)
    return existsSync(beside) ? beside : undefined
  }
}
