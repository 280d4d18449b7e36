/**
 * The database schema, one list of migrations applied in order. A block and everything it writes
 * (header, body, receipts, logs, trie nodes, canonical index, head) commit in one transaction.
 *
 *   meta        key → value        schema version, genesis hash, head/safe/finalized hashes
 *   headers     hash → header RLP  with number and total difficulty
 *   bodies      hash → body RLP    [txs, ommers, withdrawals?] plus the senders, 20 bytes each
 *   receipts    hash → RLP list of the block's consensus receipts
 *   canonical   number → hash      the canonical chain
 *   txs         tx hash → (block hash, index)  canonical transactions only
 *   logs        (block number, log index) → log with its address and topics as columns, block timestamp
 *   trie_nodes  node hash (or prefixed code hash) → bytes; never deleted: archive state
 *   bad_blocks  hash → block RLP and the reason it was rejected
 *   preimages   keccak(address or slot) → the address or slot, for debug_accountRange / storageRangeAt
 *   block_access_lists  hash → the RLP of the block's access list (EIP-7928), written with the
 *               block for blocks of the forks that have one (none before Amsterdam)
 *   revert_reasons  hash → RLP list, per transaction, of [] or [the bytes its top-level REVERT
 *               returned]; written with the block by a node run with --revert-reason-enabled, for
 *               blocks with a reverted transaction only (the receipts table keeps the consensus form)
 *
 * BONSAI data paths (see docs/state-storage.md) add the flat head state and its history:
 *   flat_accounts   keccak(address) → account RLP                   the head's accounts
 *   flat_storage    (keccak(address), keccak(slot)) → value RLP     the head's storage
 *   trie_logs       (block number, block hash, seq) → the block's state diff; seq 0 is the
 *                   block's execution, later ones the dev tools' edits of the state after it
 *   stale_nodes     trie node key → the block number from which no canonical state needs it;
 *                   deleted with the node once that block leaves the history window; it, the
 *                   flat tables and state_history are written up to block meta.deferredThrough
 *                   (the flat tables then hold the state meta.flatRoot names), the blocks above
 *                   it replayed from their trie logs at start-up
 *
 * and, with the state history on (the dev chain's default), every canonical state beyond the window:
 *   history_keys    keccak(address), or keccak(address) ‖ keccak(slot) → a small id
 *   state_history   (id, block number) → the account (slim RLP) or slot value after that block;
 *                   empty when it does not exist. A state at block n reads, per key, the row with
 *                   the highest number ≤ n.
 */
import type { SqlDatabase } from './sqlite.ts'

const MIGRATIONS: string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
   CREATE TABLE headers (hash BLOB PRIMARY KEY, number INTEGER NOT NULL, td BLOB NOT NULL, rlp BLOB NOT NULL) WITHOUT ROWID;
   CREATE TABLE bodies (hash BLOB PRIMARY KEY, rlp BLOB NOT NULL, senders BLOB NOT NULL) WITHOUT ROWID;
   CREATE TABLE receipts (hash BLOB PRIMARY KEY, rlp BLOB NOT NULL) WITHOUT ROWID;
   CREATE TABLE canonical (number INTEGER PRIMARY KEY, hash BLOB NOT NULL);
   CREATE TABLE txs (hash BLOB PRIMARY KEY, block_hash BLOB NOT NULL, idx INTEGER NOT NULL) WITHOUT ROWID;
   CREATE TABLE logs (
     block_number INTEGER NOT NULL, log_index INTEGER NOT NULL, block_hash BLOB NOT NULL,
     tx_hash BLOB NOT NULL, tx_index INTEGER NOT NULL, address BLOB NOT NULL,
     topic0 BLOB, topic1 BLOB, topic2 BLOB, topic3 BLOB, data BLOB NOT NULL,
     PRIMARY KEY (block_number, log_index)) WITHOUT ROWID;
   CREATE INDEX logs_by_address ON logs (address, block_number);
   CREATE INDEX logs_by_topic0 ON logs (topic0, block_number);
   CREATE TABLE trie_nodes (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
   CREATE TABLE bad_blocks (hash BLOB PRIMARY KEY, rlp BLOB NOT NULL, reason TEXT NOT NULL, at_ms INTEGER NOT NULL) WITHOUT ROWID;`,
  // Log queries answer blockTimestamp without reading a header per block; NULL in older rows.
  'ALTER TABLE logs ADD COLUMN block_timestamp INTEGER;',
  // The state trie's hashed keys back to addresses and slots (state/preimages.ts writes them).
  'CREATE TABLE preimages (hash BLOB PRIMARY KEY, preimage BLOB NOT NULL) WITHOUT ROWID;',
  `CREATE TABLE flat_accounts (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
   CREATE TABLE flat_storage (account BLOB NOT NULL, slot BLOB NOT NULL, value BLOB NOT NULL,
     PRIMARY KEY (account, slot)) WITHOUT ROWID;
   CREATE TABLE trie_logs (hash BLOB NOT NULL, seq INTEGER NOT NULL, number INTEGER NOT NULL, log BLOB NOT NULL,
     PRIMARY KEY (hash, seq)) WITHOUT ROWID;
   CREATE INDEX trie_logs_by_number ON trie_logs (number);
   CREATE TABLE stale_nodes (key BLOB PRIMARY KEY, stale_at INTEGER NOT NULL) WITHOUT ROWID;
   CREATE INDEX stale_nodes_by_block ON stale_nodes (stale_at);`,
  // BONSAI's state history beyond the window (state/stateHistory.ts).
  `CREATE TABLE history_keys (key BLOB PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;
   CREATE TABLE state_history (id INTEGER NOT NULL, number INTEGER NOT NULL, value BLOB NOT NULL,
     PRIMARY KEY (id, number)) WITHOUT ROWID;`,
  // No table changes: from here on `stale_nodes` and `state_history` may lag the head after a
  // crash, up to `meta.deferredThrough`, until the start-up replays the trie logs above it
  // (state/bonsaiState.ts). A Basalt without that replay must refuse such a data path, so the
  // version moves; an older data path has no `deferredThrough` and is whole up to its head.
  "DELETE FROM meta WHERE key = 'deferredThrough';",
  // EIP-7928's block access lists, served by eth_getBlockAccessList*; blocks stored before have none.
  'CREATE TABLE block_access_lists (hash BLOB PRIMARY KEY, rlp BLOB NOT NULL) WITHOUT ROWID;',
  // Besu's --revert-reason-enabled: the revert reasons shown in receipts, beside the consensus receipts.
  'CREATE TABLE revert_reasons (hash BLOB PRIMARY KEY, rlp BLOB NOT NULL) WITHOUT ROWID;',
  // No table changes: from here on the flat tables too may lag the head after a crash (they hold
  // the state `meta.flatRoot` names, up to `meta.deferredThrough`) until the start-up replays the
  // trie logs above it. A Basalt that does not replay them must refuse such a data path.
  'DELETE FROM meta WHERE 0;',
  // Trie logs keyed by block number first: a block's log goes after the last one (the rightmost
  // pages) instead of at its hash's random place, and no index by number is needed. The table
  // holds the window's blocks only, so the copy is small.
  `CREATE TABLE trie_logs_by_block (number INTEGER NOT NULL, hash BLOB NOT NULL, seq INTEGER NOT NULL, log BLOB NOT NULL,
     PRIMARY KEY (number, hash, seq)) WITHOUT ROWID;
   INSERT INTO trie_logs_by_block (number, hash, seq, log) SELECT number, hash, seq, log FROM trie_logs;
   DROP TABLE trie_logs;
   ALTER TABLE trie_logs_by_block RENAME TO trie_logs;`,
]

export const SCHEMA_VERSION = MIGRATIONS.length

/** The schema version of a database: 0 for a new one. */
export function schemaVersionOf(db: SqlDatabase): number {
  return Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0)
}

/** Sets the pragmas and brings the schema up to date; refuses a database from a newer Basalt. */
export function migrate(db: SqlDatabase, isMemory: boolean): void {
  if (!isMemory) db.exec('PRAGMA journal_mode = WAL')
  // NORMAL in WAL mode: a commit survives a process crash (kill -9); only a power loss can drop
  // the last transactions. The dev chain goes further with OFF (`skipCheckpointSyncs` in sqlite.ts).
  db.exec('PRAGMA synchronous = NORMAL')
  db.exec('PRAGMA cache_size = -65536')
  db.exec('PRAGMA temp_store = MEMORY')
  const version = schemaVersionOf(db)
  if (version > SCHEMA_VERSION) {
    throw new Error(`database schema version ${version} is newer than this basalt supports (${SCHEMA_VERSION})`)
  }
  for (let v = version; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v])
      db.exec(`PRAGMA user_version = ${v + 1}`)
    })
  }
}
