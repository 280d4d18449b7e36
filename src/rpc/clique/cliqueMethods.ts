/**
 * Besu's CLIQUE group (off unless enabled with --rpc-http-api CLIQUE): the signers after a block,
 * this node's signer proposals (a block it seals carries one of them as its vote), and blocks sealed
 * per signer over a range. Answers only on a clique chain, as Besu registers the group only there.
 * Spec: Besu's JSON-RPC API reference, Clique methods; votes as EIP-225 (src/chain/cliqueVotes.ts).
 */
import type { BlockHeader } from '@ethereumjs/block'
import { cliqueSigner } from '@ethereumjs/block'
import { cliqueTallyAfter } from '../../chain/clique.ts'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod, type RpcMethod } from '../../jsonrpc/defineMethod.ts'
import { InternalError, InvalidRequestError, MethodNotFoundError } from '../../jsonrpc/errors.ts'
import { bytesToHex, type Hex, hexToBytes } from '../../primitives/hex.ts'
import { signerMetrics } from '../bft/bftMethods.ts'
import type { RpcContext } from '../context.ts'

function proposalsOf(ctx: RpcContext): Map<string, boolean> {
  if (!ctx.cliqueProposals) throw new MethodNotFoundError()
  return ctx.cliqueProposals
}

/** The signers after `header` (its own vote counted); Besu answers an unknown block with -32603. */
async function signersAfter(ctx: RpcContext, header: BlockHeader | undefined): Promise<Hex[]> {
  proposalsOf(ctx)
  if (!header) throw new InternalError()
  return cliqueTallyAfter(ctx.chain, header).signers() as Hex[]
}

const getSigners = defineMethod({
  name: 'clique_getSigners',
  besu: { kinds: ['block'] },
  params: [p.blockNumberOrTag.optional()],
  handler: async (ctx: RpcContext, [ref]) => {
    proposalsOf(ctx)
    const block = await ctx.chain.resolve(ref ?? 'latest')
    return signersAfter(ctx, block?.header)
  },
})

const getSignersAtHash = defineMethod({
  name: 'clique_getSignersAtHash',
  besu: { kinds: ['blockHash'] },
  params: [p.hash],
  handler: (ctx: RpcContext, [hash]) => signersAfter(ctx, ctx.chain.getHeaderByHash(hash)),
})

const propose = defineMethod({
  name: 'clique_propose',
  besu: { kinds: ['address', 'proposal'] },
  params: [p.address, p.bool],
  handler: (ctx: RpcContext, [address, isAdd]) => {
    const proposals = proposalsOf(ctx)
    // The zero address is clique's "no vote": Besu refuses it as an invalid request.
    if (address.every((b) => b === 0)) throw new InvalidRequestError()
    proposals.set(bytesToHex(address).toLowerCase(), isAdd)
    return true
  },
})

const discard = defineMethod({
  name: 'clique_discard',
  besu: { kinds: ['address'] },
  params: [p.address],
  handler: (ctx: RpcContext, [address]) => {
    proposalsOf(ctx).delete(bytesToHex(address).toLowerCase())
    return true
  },
})

const proposals = defineMethod({
  name: 'clique_proposals',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => Object.fromEntries(proposalsOf(ctx)),
})

const getSignerMetrics = defineMethod({
  name: 'clique_getSignerMetrics',
  besu: { kinds: ['blockNumber', 'blockNumber'] },
  params: [p.blockNumberOrTag.optional(), p.blockNumberOrTag.optional()],
  handler: (ctx: RpcContext, [from, to]) => {
    proposalsOf(ctx)
    const rules = {
      // The genesis has no seal: Besu names the zero address as its proposer.
      proposerOf: (h: BlockHeader) => (h.number === 0n ? new Uint8Array(20) : cliqueSigner(h).bytes),
      signersAfter: async (h: BlockHeader) => (await signersAfter(ctx, h)).map((s) => hexToBytes(s)),
    }
    return signerMetrics(ctx, rules, from, to)
  },
})

export const cliqueMethods: RpcMethod<RpcContext>[] = [
  getSigners,
  getSignersAtHash,
  propose,
  discard,
  proposals,
  getSignerMetrics,
]
