/**
 * A hand-assembled contract that emits `Ping(uint256 indexed a, uint256 b)` with a = b = the first
 * 32 bytes of calldata, for log, filter and subscription tests (no compiler needed).
 */
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex } from '../../src/primitives/hex.ts'

export const PING_TOPIC = keccak_256(new TextEncoder().encode('Ping(uint256,uint256)'))

export const PING_ABI = [
  {
    type: 'event',
    name: 'Ping',
    inputs: [
      { name: 'a', type: 'uint256', indexed: true },
      { name: 'b', type: 'uint256', indexed: false },
    ],
  },
] as const

/** Runtime: mem[0..32] = calldata[0..32]; LOG2(mem[0..32], PING_TOPIC, calldata[0..32]). */
export const EMITTER_RUNTIME = `60003580600052 7f${bytesToHex(PING_TOPIC).slice(2)} 60206000a200`.replaceAll(' ', '')

/** Init code returning `runtime` (hex without 0x, under 256 bytes), as 0x hex. */
export function deployCodeHex(runtime: string): `0x${string}` {
  const len = (runtime.length / 2).toString(16).padStart(2, '0')
  return `0x60${len}600c60003960${len}6000f3${runtime}`
}
