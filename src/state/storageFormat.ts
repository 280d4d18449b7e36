/** The state storage formats (Besu's `--data-storage-format` names) and their defaults; see docs/state-storage.md. */

export type StorageFormat = 'FOREST' | 'BONSAI'
export const STORAGE_FORMATS: readonly StorageFormat[] = ['FOREST', 'BONSAI']
/** What a new data path gets without `--data-storage-format` (the figures behind it: docs/performance.md). */
export const DEFAULT_STORAGE_FORMAT: StorageFormat = 'BONSAI'
/** Besu's default for `--bonsai-historical-block-limit`. */
export const DEFAULT_HISTORICAL_BLOCK_LIMIT = 512
/**
 * Besu's `--data-storage-format` value for Bonsai with every older state kept (its experimental
 * archive mode): here a BONSAI data path with the state history on (docs/state-storage.md).
 */
export const BONSAI_ARCHIVE = 'X_BONSAI_ARCHIVE'
