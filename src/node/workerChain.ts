/**
 * A call worker's chain (callWorker.ts runs it on its thread): the chain's rules opened as the node
 * opens them (chainRules.ts), blocks, the flat head state and contract code read from the data
 * path's database on a read-only connection of its own. It writes nothing.
 *
 * Each question names the block and the state root the node's thread sees. It is answered inside
 * one read transaction, so every read of the call sees one committed state; when the flat tables of
 * that snapshot hold another state (a block committed since, or one this connection does not see
 * yet), the answer is `stale` and the node's thread runs the call itself: a worker never answers
 * from a head other than the one asked for.
 */
import type { Block } from '@ethereumjs/block'
import { Chain } from '../chain/chain.ts'
import { createGenesisBlock } from '../chain/genesis.ts'
import { writeGenesisState } from '../chain/stateRecovery.ts'
import type { CallChain } from '../evm/callService.ts'
import { withExecutionDeadline } from '../evm/executionDeadline.ts'
import { InternalError, RpcError } from '../jsonrpc/errors.ts'
import { bytesToHex, equalBytes, hexToBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { executionTimeoutError } from '../rpc/eth/callErrors.ts'
import { answerCall, answerEstimate, type EstimateArgs, type EthCallArgs } from '../rpc/eth/callMethods.ts'
import { TrieDb } from '../state/trieDb.ts'
import type { FlatHead } from '../state/worldState.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { FlatStore } from '../storage/flatStore.ts'
import { openSqlite, type SqlDatabase } from '../storage/sqlite.ts'
import { chainRules, loadGenesis } from './chainRules.ts'
import type { FromListener, ListenInit, ToListener } from './listenerThread.ts'

/** What a worker needs to open the chain as the node did. */
export interface CallWorkerInit {
  dbFile: string
  genesisFile?: string
  minGasPrice?: bigint
  rpcGasCap: bigint
  rpcEvmTimeoutMs: number
}

export interface CallQuestion {
  type: 'call'
  id: number
  method: 'eth_call' | 'eth_estimateGas'
  blockHash: Uint8Array
  /** The state after the block, as the node's thread sees it. */
  stateRoot: Uint8Array
  args: unknown[]
}

/** The answer to a question: its result, its RPC error, or `stale` (the node's thread runs it). */
export interface CallAnswer {
  type: 'answer'
  id: number
  result?: string
  error?: CallWorkerError
  isStale?: boolean
}

/**
 * Questions and answers cross as JSON text: a string is cloned between threads at about a third of
 * the cost of the same call as objects (bytes and bigints), measured under Bun.
 */
export type ToCallWorker =
  | { type: 'init'; init: CallWorkerInit }
  | { type: 'listen'; listen: ListenInit }
  | { type: 'listener'; message: ToListener }
  | string

/** A JSON-RPC error as the dispatcher writes it. */
export interface CallWorkerError {
  code: number
  message: string
  data?: unknown
}

export type FromCallWorker =
  | { type: 'ready' }
  | { type: 'failed'; error: string }
  | { type: 'listener'; message: FromListener }
  | string

/** A question as text: bytes as `{"$b": hex}`, bigints as `{"$n": hex}`. */
export function encodeQuestion(q: CallQuestion): string {
  return JSON.stringify(q, (_key, v) => {
    if (typeof v === 'bigint') return { $n: v.toString(16) }
    if (v instanceof Uint8Array) return { $b: bytesToHex(v) }
    return v
  })
}

/** The question `encodeQuestion` wrote; an absent argument (null in JSON) is undefined again. */
export function decodeQuestion(text: string): CallQuestion {
  return JSON.parse(text, (_key, v) => {
    if (v === null) return undefined
    if (typeof v !== 'object') return v
    if (typeof v.$b === 'string') return hexToBytes(v.$b)
    if (typeof v.$n === 'string') return BigInt(`0x${v.$n}`)
    return v
  })
}

/** The flat meta row the chain writes with every head move (bonsaiState.ts). */
const META_FLAT_ROOT = 'flatRoot'
/** SQLite's page cache of a worker's connection (the node's own has 64 MiB). */
const CACHE_SIZE_KIB = 16_384

const log = createLogger('callWorker')

/** One worker's chain: its rules, its read connection and the state root of the current snapshot. */
export class WorkerChain {
  readonly db: SqlDatabase
  readonly chain: Chain
  readonly source: CallChain
  readonly init: CallWorkerInit
  /** The state the flat tables hold in the open read transaction; undefined outside one. */
  private snapshotRoot?: Uint8Array
  /** Questions being answered (they share the read transaction). */
  private running = 0
  private isHeld = false
  /** The state root after each block the node asked about (its header's, unless the dev tools edited it). */
  private readonly roots = new Map<string, Uint8Array>()

  constructor(db: SqlDatabase, chain: Chain, init: CallWorkerInit) {
    this.db = db
    this.chain = chain
    this.init = init
    const flatHead: FlatHead = {
      flat: new FlatStore(db),
      isAt: (root) => this.snapshotRoot !== undefined && equalBytes(this.snapshotRoot, root),
    }
    this.source = {
      common: chain.common,
      trieDb: chain.trieDb,
      bonsai: flatHead,
      getBlockByNumber: (n) => chain.getBlockByNumber(n),
      postStateRoot: (block) => this.roots.get(bytesToHex(block.hash())) ?? chain.postStateRoot(block),
      nextBaseFee: (parent) => chain.nextBaseFee(parent),
    }
  }

  static async open(init: CallWorkerInit): Promise<WorkerChain> {
    const db = await openSqlite(init.dbFile)
    db.exec('PRAGMA query_only = ON')
    db.exec('PRAGMA busy_timeout = 1000')
    db.exec(`PRAGMA cache_size = -${CACHE_SIZE_KIB}`)
    const genesis = loadGenesis(init)
    const { baseFeeMarket, common, crypto } = await chainRules(genesis, init)
    const store = new ChainStore(db)
    const trieDb = new TrieDb(store)
    if (trieDb.preimages && crypto.keccak256) trieDb.preimages.hash = crypto.keccak256
    trieDb.storageFormat = 'BONSAI'
    // The genesis state's nodes go to this worker's memory only: it never writes.
    const genesisBlock = createGenesisBlock(common, await writeGenesisState(trieDb, common, genesis))
    const chain = new Chain(common, store, trieDb, baseFeeMarket)
    await chain.open(genesisBlock)
    return new WorkerChain(db, chain, init)
  }

  /**
   * Answers `q`. Questions asked while others run join their read transaction (one snapshot for
   * all of them), so a long call (a loop, up to `--rpc-evm-timeout`) never holds the ones behind it;
   * the transaction ends, and the next question sees the newest commit, when none is left running.
   */
  async answer(q: CallQuestion): Promise<CallAnswer> {
    try {
      return await this.read(async (snapshotRoot) => {
        const isAtRoot = snapshotRoot !== undefined && equalBytes(snapshotRoot, q.stateRoot)
        const block = isAtRoot ? await this.chain.getBlockByHash(q.blockHash) : undefined
        if (!block) return { type: 'answer', id: q.id, isStale: true }
        this.remember(block, q.stateRoot)
        this.chain.head = block
        const result = await withExecutionDeadline(this.init.rpcEvmTimeoutMs, () => this.run(q, block))
        return { type: 'answer', id: q.id, result }
      })
    } catch (e) {
      return { type: 'answer', id: q.id, error: wireError(e) }
    }
  }

  /**
   * Runs `fn` inside the shared read transaction, with the state root its flat tables hold
   * (undefined when none is recorded); the transaction ends when no reader is left and none holds it.
   */
  async read<T>(fn: (snapshotRoot: Uint8Array | undefined) => Promise<T>): Promise<T> {
    this.enter()
    try {
      return await fn(this.snapshotRoot)
    } finally {
      this.leave()
    }
  }

  /**
   * Keeps the read transaction open after its readers end, until `release` (a listener thread
   * answers from one snapshot while the head it was opened at stays); returns its flat state root.
   */
  hold(): Uint8Array | undefined {
    if (!this.isHeld) {
      this.isHeld = true
      this.enter()
    }
    return this.snapshotRoot
  }

  /** Ends a `hold`: the transaction ends once its readers have. */
  release(): void {
    if (!this.isHeld) return
    this.isHeld = false
    this.leave()
  }

  private enter(): void {
    if (this.running++ === 0) {
      this.db.exec('BEGIN')
      // The first read of the transaction fixes its snapshot.
      this.snapshotRoot = this.chain.store.readMeta(META_FLAT_ROOT)
    }
  }

  private leave(): void {
    if (--this.running === 0) {
      this.snapshotRoot = undefined
      this.db.exec('COMMIT')
    }
  }

  private run(q: CallQuestion, block: Block): Promise<string> {
    if (q.method === 'eth_call') return answerCall(this.source, block, this.init.rpcGasCap, q.args as EthCallArgs)
    return answerEstimate(this.source, block, this.init.rpcGasCap, q.args as EstimateArgs)
  }

  /** Records the state root the node named for `block`. */
  remember(block: Block, root: Uint8Array): void {
    this.roots.set(bytesToHex(block.hash()), root)
    if (this.roots.size > 64) this.roots.delete(this.roots.keys().next().value!)
  }
}

/** An error as the dispatcher would answer it (the node's own mapping, then -32603). */
function wireError(e: unknown): CallWorkerError {
  const mapped = e instanceof RpcError ? e : executionTimeoutError(e)
  if (!mapped) log.error('call failed in a worker', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) })
  const error = mapped ?? new InternalError()
  return error.data === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, data: error.data }
}
