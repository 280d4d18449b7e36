/** The filter object of eth_getLogs, eth_newFilter and the `logs` subscription. Spec: execution-apis src/eth/filter.yaml */
import type { LogCriteria } from '../../chain/logFilter.ts'
import { type BlockTagName, codec, decoders } from '../../jsonrpc/codecs.ts'

export interface FilterParam {
  /** EIP-234: the one block to read; excludes `fromBlock` / `toBlock`. */
  blockHash?: Uint8Array
  fromBlock: BlockTagName | bigint
  toBlock: BlockTagName | bigint
  criteria: LogCriteria
}

const address = decoders.fixed(20, 'an address')
const topic = decoders.fixed(32, 'a topic')

function addresses(v: unknown): Uint8Array[] {
  if (v === undefined || v === null) return []
  if (Array.isArray(v)) return v.map(address)
  return [address(v)]
}

function topics(v: unknown): (Uint8Array[] | null)[] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) return decoders.fail('topics: expected an array')
  return v.map((alts) => {
    if (alts === null) return null
    if (Array.isArray(alts)) return alts.filter((t) => t !== null).map(topic)
    return [topic(alts)]
  })
}

function decodeFilter(v: unknown): FilterParam {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return decoders.fail('expected a filter object')
  const o = v as Record<string, unknown>
  const isSet = (x: unknown) => x !== undefined && x !== null
  // Besu's FilterParameter takes `blockhash` as another name of `blockHash`.
  const blockHash = isSet(o.blockHash) ? o.blockHash : o.blockhash
  if (isSet(blockHash) && (isSet(o.fromBlock) || isSet(o.toBlock))) {
    // go-ethereum's wording; Besu answers its filter text (`defineMethod`), the wording goes to the log.
    decoders.fail('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other')
  }
  return {
    blockHash: isSet(blockHash) ? decoders.fixed(32, 'a block hash')(blockHash) : undefined,
    fromBlock: isSet(o.fromBlock) ? decoders.blockNumberOrTag(o.fromBlock) : 'latest',
    toBlock: isSet(o.toBlock) ? decoders.blockNumberOrTag(o.toBlock) : 'latest',
    criteria: { addresses: addresses(o.address), topics: topics(o.topics) },
  }
}

export const filterParam = codec('filter', decodeFilter)
