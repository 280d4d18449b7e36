import { createTxFromRLP } from '@ethereumjs/tx'
import { toChecksumAddress } from '@ethereumjs/util'
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { devAccounts } from '../../chain/devAccounts.ts'
import { recoverAddress } from '../../consensus/bftHashing.ts'
import type { RpcError } from '../../jsonrpc/errors.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { inspect } from '../txpool/txpoolMethods.ts'
import { personalMessageHash } from './messageHashing.ts'
import { sendSyncMethods } from './sendSyncMethods.ts'
import { signMethods } from './signMethods.ts'
import { getRawTransactionByHash } from './txMethods.ts'

let t: TracingChain
let ctx: RpcContext
const SIGNER = devAccounts()[1].address.toLowerCase()
const OTHER = '0x000000000000000000000000000000000000beef'
const method = (name: string) => [...signMethods, ...sendSyncMethods].find((m) => m.name === name)!

beforeAll(async () => {
  t = await tracingChain()
  ctx = rpcContext(t)
  ctx.settings.isDevAccountsUnlocked = true
})
afterAll(() => {
  ctx.filters.stop()
  t.close()
})

async function rpcError(name: string, params: unknown[], c = ctx): Promise<{ code: number; message: string }> {
  try {
    await call(c, method(name), params)
  } catch (e) {
    return { code: (e as RpcError).code, message: (e as Error).message }
  }
  throw new Error(`${name} did not fail`)
}

function signer(digest: Uint8Array, signature: string): string {
  const sig = hexToBytes(signature)
  expect(sig.length).toBe(65)
  expect([27, 28]).toContain(sig[64])
  sig[64] -= 27
  return bytesToHex(recoverAddress(digest, sig)!)
}

describe('eth_sign and personal_sign', () => {
  it('sign an EIP-191 message with a dev account; both argument orders give the same signature', async () => {
    const sig = await call<string>(ctx, method('eth_sign'), [SIGNER, '0x68656c6c6f'])
    expect(await call<string>(ctx, method('personal_sign'), ['0x68656c6c6f', SIGNER])).toBe(sig)
    expect(signer(personalMessageHash(new TextEncoder().encode('hello')), sig)).toBe(SIGNER)
  })

  it('refuse an address with no key, locked dev accounts and bad data as Anvil does (-32602)', async () => {
    expect(await rpcError('eth_sign', [OTHER, '0x00'])).toEqual({ code: -32602, message: 'No Signer available' })
    const locked = { ...ctx, settings: { ...ctx.settings, isDevAccountsUnlocked: false } }
    expect(await rpcError('personal_sign', ['0x00', SIGNER], locked)).toEqual({
      code: -32602,
      message: 'No Signer available',
    })
    expect((await rpcError('eth_sign', [SIGNER, 'hello'])).code).toBe(-32602)
    expect((await rpcError('eth_sign', [SIGNER])).message).toBe('Invalid params: expected 2 argument(s), got 1')
  })
})

describe('eth_signTypedData_v4', () => {
  const permit = (value: unknown) => ({
    types: {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    domain: { name: 'Token', version: '1', chainId: 1337 },
    message: { owner: SIGNER, spender: OTHER, value },
  })

  it('signs the same document given as an object or as JSON text', async () => {
    const sig = await call<string>(ctx, method('eth_signTypedData_v4'), [SIGNER, permit('1000')])
    expect(await call<string>(ctx, method('eth_signTypedData_v4'), [SIGNER, JSON.stringify(permit(1000))])).toBe(sig)
  })

  it('names what is wrong in a malformed document', async () => {
    expect(await rpcError('eth_signTypedData_v4', [SIGNER, permit('x')])).toEqual({
      code: -32602,
      message: 'invalid argument 1 (typedData): typed data: Permit.value must be an integer (uint256)',
    })
    expect((await rpcError('eth_signTypedData_v4', [OTHER, permit(1)])).message).toBe('No Signer available')
  })
})

describe('eth_signTransaction and eth_fillTransaction', () => {
  it('signs a request filled as eth_sendTransaction fills it, without sending it', async () => {
    const raw = await call<string>(ctx, method('eth_signTransaction'), [{ from: SIGNER, to: OTHER, value: '0x1' }])
    const tx = createTxFromRLP(hexToBytes(raw), { common: t.chain.commonForNextBlock() })
    expect(tx.getSenderAddress().toString() as string).toBe(SIGNER)
    expect(tx.gasLimit).toBe(21_000n)
    expect(tx.nonce).toBe(0n)
    expect(t.pool.size).toBe(0)
    expect((await rpcError('eth_signTransaction', [{ to: OTHER }])).message).toBe(
      'invalid argument 0 (transaction): from is required',
    )
    expect((await rpcError('eth_signTransaction', [{ from: OTHER, to: OTHER }])).message).toBe('No Signer available')
  })

  it('fills a request as {raw, tx}, unsigned, for any sender', async () => {
    const out = await call(ctx, method('eth_fillTransaction'), [{ from: OTHER, to: SIGNER, value: '0x0' }])
    expect(out.tx).toMatchObject({ from: OTHER, to: SIGNER, nonce: '0x0', gas: '0x5208', type: '0x2', r: '0x0' })
    expect(out.raw.endsWith('c0808080')).toBe(true)
  })
})

describe('eth_sendRawTransactionSync, eth_sendTransactionSync and the lookups of sent transactions', () => {
  it('answers the receipt once a block holds the transaction', async () => {
    const raw = await call<string>(ctx, method('eth_signTransaction'), [{ from: SIGNER, to: OTHER, value: '0x2' }])
    const pending = call(ctx, method('eth_sendRawTransactionSync'), [raw, 5000])
    await new Promise((r) => setTimeout(r, 20))
    await t.sealer.sealBlock(false)
    const receipt = await pending
    expect(receipt).toMatchObject({ status: '0x1', from: SIGNER, to: OTHER })
    const found = await call(ctx, method('eth_getTransactionBySenderAndNonce'), [SIGNER, '0x0'])
    expect(found).toMatchObject({ hash: receipt.transactionHash, blockNumber: receipt.blockNumber, nonce: '0x0' })
    expect(await call(ctx, method('eth_getTransactionBySenderAndNonce'), [SIGNER, 7])).toBeNull()
  })

  it('answers code 4 when no block comes in time; the pooled transaction is found by nonce, in txpool_inspect and raw', async () => {
    const err = await rpcError('eth_sendTransactionSync', [{ from: SIGNER, to: OTHER }, '0x32'])
    expect(err).toEqual({ code: 4, message: "The transaction was added to the mempool but wasn't processed in 50ms." })
    const pooled = await call(ctx, method('eth_getTransactionBySenderAndNonce'), [SIGNER, '0x1'])
    expect(pooled).toMatchObject({ from: SIGNER, nonce: '0x1', blockHash: null })
    const summary = await call(ctx, inspect)
    expect(summary.pending[toChecksumAddress(SIGNER)]).toEqual({
      '1': `${toChecksumAddress(OTHER)}: 0 wei + 21000 gas × ${BigInt(pooled.maxFeePerGas)} wei`,
    })
    expect(await call(ctx, getRawTransactionByHash, [pooled.hash])).toBe(pooled.raw)
    await t.sealer.sealBlock(false)
    expect(await call(ctx, getRawTransactionByHash, [pooled.hash])).toBe(pooled.raw)
    expect(await call(ctx, getRawTransactionByHash, [`0x${'00'.repeat(32)}`])).toBeNull()
  })
})
