/**
 * A node driven as a consensus client would drive it: a post-merge genesis with Cancun at 0 and
 * Prague / Osaka at chosen times, the Engine API on a free port with a known JWT secret, and a
 * client that signs a fresh HS256 token per request.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SignJWT } from 'jose'
import { devAccounts } from '../../src/chain/devAccounts.ts'
import { devGenesis } from '../../src/chain/genesis.ts'
import { type StartedNode, startNode } from './harness.ts'

export const ZERO32 = `0x${'00'.repeat(32)}`
export const JWT_SECRET = new Uint8Array(32).fill(7)

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

/** Starts a node whose Prague and Osaka forks begin `pragueInSec` / `osakaInSec` from now. */
export async function startEngineNode(pragueInSec = 10_000, osakaInSec = 20_000): Promise<EngineNode> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-engine-'))
  const now = Math.floor(Date.now() / 1000)
  const genesis = devGenesis()
  const pragueTime = now + pragueInSec
  const osakaTime = now + osakaInSec
  Object.assign(genesis.config, { cancunTime: 0, pragueTime, osakaTime })
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
    ],
  })
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
