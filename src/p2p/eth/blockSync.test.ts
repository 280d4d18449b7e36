import type { Block } from '@ethereumjs/block'
import { importBlock } from '../../chain/blockImporter.ts'
import type { Chain } from '../../chain/chain.ts'
import { openChain, poolChainView } from '../../node/node.ts'
import { manualClock } from '../../primitives/clock.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { DevSealer } from '../../producer/devSealer.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { TxPool } from '../../txpool/txPool.ts'
import { BlockSync, type SyncPeer, type SyncStatus } from './blockSync.ts'
import { serveBodies, serveHeaders } from './chainServer.ts'

async function sealedChain(blocks: number, coinbaseByte: number): Promise<Chain> {
  const { chain } = await openChain({ dataPath: ':memory:' })
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
  const clock = manualClock(1_700_000_000_000)
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20).fill(coinbaseByte), clock })
  for (let i = 0; i < blocks; i++) {
    clock.advance(12_000)
    await sealer.sealBlock(true)
  }
  return chain
}

/** A peer answering from `chain`, counting its requests. */
function peerOf(chain: Chain): SyncPeer & { requests: number } {
  const peer = {
    id: 'ab'.repeat(64),
    headHash: chain.head.hash(),
    requests: 0,
    getHeaders: async (q: Parameters<SyncPeer['getHeaders']>[0]) => {
      peer.requests++
      return serveHeaders(chain, q)
    },
    getBodies: async (hashes: Uint8Array[]) => {
      peer.requests++
      return serveBodies(chain, hashes)
    },
  }
  return peer
}

describe('BlockSync', () => {
  it('leaves a side branch for the peer chain from the last shared block and reports progress', async () => {
    const remote = await sealedChain(6, 0xaa)
    const local = await sealedChain(3, 0xbb)
    expect(bytesToHex(local.head.hash())).not.toBe(bytesToHex((await remote.getBlockByNumber(3n))!.hash()))
    const seen: (SyncStatus | undefined)[] = []
    const sync: BlockSync = new BlockSync(local, async (b: Block) => {
      seen.push(sync.status())
      await importBlock(local, b, { setHead: true })
    })
    await sync.requestSync(peerOf(remote))
    expect(bytesToHex(local.head.hash())).toBe(bytesToHex(remote.head.hash()))
    expect(seen.length).toBe(6)
    expect(seen[0]).toEqual({ startingBlock: 3n, currentBlock: 3n, highestBlock: 6n })
    expect(sync.status()).toBeUndefined()
  })

  it('does nothing when the peer head is already ours', async () => {
    const chain = await sealedChain(2, 0xaa)
    const peer = peerOf(chain)
    await new BlockSync(chain, async () => {
      throw new Error('nothing to import')
    }).requestSync(peer)
    expect(peer.requests).toBe(0)
  })
})
