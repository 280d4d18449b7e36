/**
 * A node driven as a consensus client would drive it: a post-merge genesis with Cancun at 0 and
 * Prague / Osaka at chosen times, the Engine API on a free port with a known JWT secret, and a
 * client that signs a fresh HS256 token per request.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { SignJWT } from 'jose'
import { bytesToHex, type Hex, hexToBytes } from 'viem'
import { devAccounts } from '../../src/chain/devAccounts.ts'
import { devGenesis } from '../../src/chain/genesis.ts'
import { type StartedNode, startNode } from './harness.ts'

export const ZERO32 = `0x${'00'.repeat(32)}`
export const JWT_SECRET = new Uint8Array(32).fill(7)
/** Where Amsterdam genesis files put a stub for both builder request contracts (it returns no requests). */
const BUILDER_REQUESTS = '0x0000000000000000000000000000000000009999'

export interface EngineNode {
  node: StartedNode
  engineUrl: string
  pragueTime: number
  osakaTime: number
  /** A JSON-RPC call on the engine port; `token` overrides the fresh valid JWT (null: none). */
  call(method: string, params: unknown[], token?: string | null): Promise<{ status: number; json: any }>
  /** The result of a call that must succeed. */
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>
}

/** An HS256 token with `iat` = now + `skewSec`. */
export function jwt(skewSec = 0, secret = JWT_SECRET): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(Math.floor(Date.now() / 1000) + skewSec)
    .sign(secret)
}

export interface EngineNodeOptions {
  /** Fork times (unix seconds); by default Prague in 10,000 s and Osaka in 20,000 s. */
  pragueTime?: number
  osakaTime?: number
  /** Cancun time; 0 (at genesis) by default. */
  cancunTime?: number
  /** Shanghai time; 0 (at genesis) by default. */
  shanghaiTime?: number
  /**
   * Amsterdam time (the latest Besu's); none by default. With it, the genesis has a stub at both
   * builder request contracts (EIP-8282), which Amsterdam calls at every block.
   */
  amsterdamTime?: number
  /** More `basalt run` options. */
  args?: string[]
}

/** Starts a post-merge node with the Engine API on a free port and the known JWT secret. */
export async function startEngineNode(opts: EngineNodeOptions = {}): Promise<EngineNode> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-engine-'))
  const now = Math.floor(Date.now() / 1000)
  const genesis = devGenesis()
  const pragueTime = opts.pragueTime ?? now + 10_000
  const osakaTime = opts.osakaTime ?? now + 20_000
  Object.assign(genesis.config, {
    shanghaiTime: opts.shanghaiTime ?? 0,
    cancunTime: opts.cancunTime ?? 0,
    pragueTime,
    osakaTime,
    ...(opts.amsterdamTime === undefined ? {} : { amsterdamTime: opts.amsterdamTime }),
  })
  if (opts.amsterdamTime !== undefined) {
    Object.assign(genesis.config, {
      builderDepositRequestContractAddress: BUILDER_REQUESTS,
      builderExitRequestContractAddress: BUILDER_REQUESTS,
    })
    Object.assign(genesis.alloc, { [BUILDER_REQUESTS]: { code: '0x00' } })
  }
  const genesisFile = join(dir, 'genesis.json')
  writeFileSync(genesisFile, JSON.stringify(genesis))
  const jwtFile = join(dir, 'jwt.hex')
  writeFileSync(jwtFile, Buffer.from(JWT_SECRET).toString('hex'))
  const node = await startNode({
    args: [
      '--genesis-file',
      genesisFile,
      '--engine-rpc-enabled',
      '--engine-rpc-port',
      '0',
      '--engine-jwt-secret',
      jwtFile,
      ...(opts.args ?? []),
    ],
  })
  // The genesis and secret files go with the node's own temporary directory.
  const removeNode = node.cleanup
  node.cleanup = async () => {
    await removeNode()
    rmSync(dir, { recursive: true, force: true })
  }
  const port = (node.config as unknown as { engineRpcPort: number }).engineRpcPort
  const engineUrl = `http://127.0.0.1:${port}`
  let id = 1
  const call = async (method: string, params: unknown[], token?: string | null) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    const bearer = token === undefined ? await jwt() : token
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`
    const res = await fetch(engineUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    })
    const text = await res.text()
    let json: any = text
    try {
      json = JSON.parse(text)
    } catch {}
    return { status: res.status, json }
  }
  const rpc = async (method: string, params: unknown[] = []) => {
    const { json } = await call(method, params)
    if (json.error)
      throw Object.assign(new Error(`${method}: ${json.error.message} ${json.error.data ?? ''}`), json.error)
    return json.result
  }
  return { node, engineUrl, pragueTime, osakaTime, call, rpc }
}

/** The dev accounts funded by the genesis (fixed keys). */
export const ACCOUNTS = devAccounts()

/** keccak(rlp(header)) of a Cancun-or-later block JSON, with `change` applied to its fields first. */
export function rehash(block: any, change: Record<string, string>): string {
  const b = { ...block, ...change }
  const q = (h: string) => {
    const digits = BigInt(h).toString(16)
    return BigInt(h) === 0n ? new Uint8Array(0) : hexToBytes(`0x${digits.length % 2 ? '0' : ''}${digits}`)
  }
  const d = (h: string) => hexToBytes(h as Hex)
  const fields = [
    d(b.parentHash),
    d(b.sha3Uncles),
    d(b.miner),
    d(b.stateRoot),
    d(b.transactionsRoot),
    d(b.receiptsRoot),
    d(b.logsBloom),
    q(b.difficulty),
    q(b.number),
    q(b.gasLimit),
    q(b.gasUsed),
    q(b.timestamp),
    d(b.extraData),
    d(b.mixHash),
    d(b.nonce),
    q(b.baseFeePerGas),
    d(b.withdrawalsRoot),
    q(b.blobGasUsed),
    q(b.excessBlobGas),
    d(b.parentBeaconBlockRoot),
  ]
  if (b.requestsHash) fields.push(d(b.requestsHash))
  return bytesToHex(keccak_256(RLP.encode(fields)))
}
