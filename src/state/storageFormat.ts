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

/** The names `--data-storage-format` takes, as a CLI lists them. */
export const STORAGE_FORMAT_NAMES = `${STORAGE_FORMATS.join(', ')} or ${BONSAI_ARCHIVE}`

/**
 * A `--data-storage-format` value (any case) as a format and, for BONSAI named explicitly, whether it
 * keeps the state history (`X_BONSAI_ARCHIVE`: yes; `BONSAI`: no); undefined for an unknown name.
 */
export function parseStorageFormat(raw: string): { format: StorageFormat; isBonsaiArchive?: boolean } | undefined {
  const name = raw.toUpperCase()
  if (name === BONSAI_ARCHIVE) return { format: 'BONSAI', isBonsaiArchive: true }
  if (name === 'BONSAI') return { format: 'BONSAI', isBonsaiArchive: false }
  return STORAGE_FORMATS.includes(name as StorageFormat) ? { format: name as StorageFormat } : undefined
}
