/**
 * The loaded KZG memory kept in the data path (16 MiB), so that a restarted node has KZG in about
 * 100 ms instead of loading the trusted setup again for 15 s or more. A cache that cannot be read,
 * restores badly or fails a known proof is ignored (and later overwritten).
 */
import { readFile, rename, writeFile } from 'node:fs/promises'
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

/** The KZG restored from `file` and the memory it came from, or undefined when there is no usable cache. */
export async function readKzgCache(file: string): Promise<{ kzg: unknown; memory: Uint8Array } | undefined> {
  let memory: Uint8Array
  try {
    memory = new Uint8Array(await readFile(file))
  } catch {
    return undefined
  }
  try {
    const kzg = (await restoreKzg(memory)) as ProofChecker
    return kzg.verifyProof(CHECK.commitment, CHECK.z, CHECK.y, CHECK.proof) === true ? { kzg, memory } : undefined
  } catch {
    return undefined
  }
}

/** Writes `memory` to `file` whole or not at all (a rename after the write). */
export async function writeKzgCache(file: string, memory: Uint8Array): Promise<void> {
  const partial = `${file}.partial`
  await writeFile(partial, memory)
  await rename(partial, file)
}
