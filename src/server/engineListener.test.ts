import { SignJWT } from 'jose'
import { describe, expect, it } from '../runtime/testing.ts'
import { isAuthorized } from './engineListener.ts'

const SECRET = new Uint8Array(32).fill(3)
const NOW_MS = 1_700_000_000_000

function token(iatSec: number | undefined, secret = SECRET): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  if (iatSec !== undefined) jwt.setIssuedAt(iatSec)
  return jwt.sign(secret)
}

describe('isAuthorized', () => {
  it('accepts a token issued within 60 s either side of now', async () => {
    expect(await isAuthorized(`Bearer ${await token(NOW_MS / 1000 - 60)}`, SECRET, NOW_MS)).toBe(true)
    expect(await isAuthorized(`Bearer ${await token(NOW_MS / 1000 + 59)}`, SECRET, NOW_MS)).toBe(true)
  })

  it('refuses a stale, future, iat-less, foreign or missing token', async () => {
    expect(await isAuthorized(`Bearer ${await token(NOW_MS / 1000 - 61)}`, SECRET, NOW_MS)).toBe(false)
    expect(await isAuthorized(`Bearer ${await token(NOW_MS / 1000 + 61)}`, SECRET, NOW_MS)).toBe(false)
    expect(await isAuthorized(`Bearer ${await token(undefined)}`, SECRET, NOW_MS)).toBe(false)
    expect(await isAuthorized(`Bearer ${await token(NOW_MS / 1000, new Uint8Array(32))}`, SECRET, NOW_MS)).toBe(false)
    expect(await isAuthorized(undefined, SECRET, NOW_MS)).toBe(false)
    expect(await isAuthorized('Basic abc', SECRET, NOW_MS)).toBe(false)
  })
})
