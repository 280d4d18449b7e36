/**
 * Whether the node key may seal on a clique chain, as the votes change it: Besu's clique miner
 * seals as soon as its key is a signer at the head and stops when it is voted out, without a
 * restart. The sealer itself checks the signers at the parent of every block it would build
 * (`CliqueNotSignerError`); this watch only says so in the log, once per change.
 */
import type { BlockHeader } from '@ethereumjs/block'
import { privateToAddress } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.ts'
import { cliqueNotSignerReason, cliqueSignersFor, signerHex } from '../chain/clique.ts'
import { createLogger } from '../primitives/logger.ts'

const log = createLogger('sealer')

/** What a check found: the key is not a signer at start, was voted in, was voted out, or nothing changed. */
export type CliqueSignerChange = 'not-signer' | 'voted-in' | 'voted-out' | undefined

export class CliqueSignerWatch {
  readonly address: string
  private isSigner?: boolean
  private readonly chain: Chain

  constructor(chain: Chain, key: Uint8Array) {
    this.chain = chain
    this.address = signerHex(privateToAddress(key))
  }

  /**
   * Whether the key is a signer of the block after `head` (votes counted; always so once clique has
   * ended at the merge); logs when that differs from the last check.
   */
  check(head: BlockHeader = this.chain.head.header): CliqueSignerChange {
    let isSigner: boolean
    try {
      const isClique = this.chain.commonForNextBlock().consensusType() === 'poa'
      isSigner = !isClique || cliqueSignersFor(this.chain, head).includes(this.address)
    } catch (e) {
      // A head whose ancestors are not all stored yet: the sealer finds out at its next block.
      log.debug('clique signers unknown at the head', { error: e instanceof Error ? e.message : String(e) })
      return undefined
    }
    const was = this.isSigner
    this.isSigner = isSigner
    if (was === isSigner || (was === undefined && isSigner)) return undefined
    if (was === undefined) {
      // The start-up line of old; the sealer keeps checking at every block.
      log.warn('no block will be produced', { reason: cliqueNotSignerReason(this.address) })
      return 'not-signer'
    }
    if (isSigner) {
      log.info('the node key is a clique signer now: sealing in its turns', {
        address: this.address,
        block: head.number,
      })
      return 'voted-in'
    }
    log.warn('the node key is no longer a clique signer: no block will be produced', {
      address: this.address,
      block: head.number,
    })
    return 'voted-out'
  }
}
