import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createBlock } from '@ethereumjs/block'
import { createBlob4844Tx } from '@ethereumjs/tx'
import { decodeWithoutKzg } from '../evm/kzgPresence.ts'
import { openChain } from '../node/node.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { afterAll, describe, expect, it } from '../runtime/testing.ts'
import { devAccounts } from './devAccounts.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-blob-read-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('reading a stored block with a blob transaction', () => {
  it('decodes it without loading KZG (no stall on the first read)', async () => {
    const dataPath = join(dir, 'data')
    const first = await openChain({ dataPath })
    const { chain } = first
    const common = chain.commonForNextBlock()
    const key = hexToBytes(devAccounts()[0].privateKey)
    const tx = decodeWithoutKzg(chain.common, () =>
      createBlob4844Tx(
        {
          chainId: common.chainId(),
          to: `0x${'be'.repeat(20)}`,
          gasLimit: 21_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 1n,
          maxFeePerBlobGas: 10n ** 10n,
          blobVersionedHashes: [`0x01${'00'.repeat(31)}`],
        },
        { common },
      ).sign(key),
    )
    const parent = chain.head.header
    const block = decodeWithoutKzg(chain.common, () =>
      createBlock(
        {
          header: {
            parentHash: chain.head.hash(),
            number: parent.number + 1n,
            timestamp: parent.timestamp + 12n,
            gasLimit: parent.gasLimit,
            baseFeePerGas: chain.nextBaseFee(),
            blobGasUsed: 131_072n,
            excessBlobGas: 0n,
            parentBeaconBlockRoot: new Uint8Array(32),
          },
          transactions: [tx],
        },
        { common },
      ),
    )
    const receipt = { cumulativeBlockGasUsed: 21_000n, bitvector: new Uint8Array(256), logs: [], status: 1 as const }
    await chain.commitBlock(block, [receipt], [tx.getSenderAddress().bytes], { setHead: false })
    first.close()

    const again = await openChain({ dataPath })
    try {
      const startedMs = performance.now()
      const read = await again.chain.getBlockByHash(block.hash())
      expect(performance.now() - startedMs).toBeLessThan(1_000)
      expect(read?.transactions[0].type).toBe(3)
      expect(read?.hash()).toEqual(block.hash())
      expect((again.chain.common.customCrypto as { kzg?: unknown }).kzg).toBeUndefined()
    } finally {
      again.close()
    }
  })
})
