/**
 * Bad input gets a clear error and loses nothing: every method refuses malformed parameters with a
 * JSON-RPC error (Besu's code; for a method Besu has, Besu's text for the parameter, and for the
 * others a message naming the argument), the transport refuses malformed bodies and frames, and
 * afterwards the node still serves with its chain unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { Wallet } from 'ethers'
import { methodGroups } from '../../src/rpc/methodGroups.ts'
import { type StartedNode, startNode } from './harness.ts'

const A20 = `0x${'11'.repeat(20)}`
const H32 = `0x${'22'.repeat(32)}`
/** Payload attributes whose withdrawal list holds a null. */
const WITHDRAWAL_NULL = { timestamp: '0x1', prevRandao: H32, suggestedFeeRecipient: A20, withdrawals: [null] }
const nest = (depth: number): unknown => {
  let v: unknown = []
  for (let i = 0; i < depth; i++) v = [v]
  return v
}
const DEEP = nest(64)
const DEEP_OBJECT = JSON.parse(`${'{"a":'.repeat(64)}1${'}'.repeat(64)}`)
const WRONG_TYPES = [123, -1, 1.5, {}, [], true, DEEP, DEEP_OBJECT]
/** A long value: an error may quote it, but only in part. */
const LONG = 'x'.repeat(100_000)
const NOT_OBJECT = ['x', 123, [], true, DEEP, LONG]
const BAD_HEX = ['', '0x', '0xzz', '0x1', 'abcd', '0X11', ' 0x11', LONG]

/** A parameter kind: one valid value, values that must be refused, words an error may name it by. */
interface Kind {
  valid: unknown
  bad: unknown[]
  names: string[]
}

const blockTagBad = [
  ...WRONG_TYPES,
  'lates',
  'latest ',
  '',
  '0x',
  '0xzz',
  '-0x1',
  'pending1',
  '1',
  `0x1${'0'.repeat(16)}`, // 2^64: beyond a block number's uint64
  `0x${'f'.repeat(70)}`,
]

/** Values refused where `size` bytes of hex are expected: wrong types, sizes and forms. */
function fixedSizeBad(size: number, byte: string): unknown[] {
  const hex = byte.repeat(size)
  const sized = [byte.repeat(size - 1), byte.repeat(size + 1), hex.slice(1), 'zz'.repeat(size)]
  return [...WRONG_TYPES, ...BAD_HEX, ...sized.map((h) => `0x${h}`), hex]
}

const KINDS = {
  address: { valid: A20, bad: fixedSizeBad(20, '11'), names: ['address'] },
  hash: { valid: H32, bad: fixedSizeBad(32, '22'), names: ['hash'] },
  index: {
    valid: '0x0',
    bad: [{}, [], true, -1, 1.5, DEEP, '', '0x', '0xzz', '-0x1', 'abc', 'latest'],
    names: ['index'],
  },
  blockTag: { valid: 'latest', bad: blockTagBad, names: ['block'] },
  block: {
    valid: 'latest',
    bad: [
      ...blockTagBad,
      `0x${'22'.repeat(31)}`,
      `0x${'22'.repeat(33)}`,
      { blockHash: `0x${'22'.repeat(31)}` },
      { blockHash: H32, blockNumber: '0x0' },
      { blockNumber: 'lates' },
      { blockHash: H32, requireCanonical: 'yes' },
      { blockHash: 123 },
    ],
    names: ['block'],
  },
  bool: { valid: false, bad: ['true', 'false', 1, 0, {}, [], 'yes', DEEP], names: ['bool'] },
  data: { valid: '0x', bad: [...WRONG_TYPES, '0x1', '0xzz', 'abcd', '0x0g'], names: ['data'] },
  // Up to 64 hex digits, any count (Besu's lenient Bytes32).
  hashKey: { valid: '0x0', bad: [...WRONG_TYPES, '0xzz', 'abcd', '0x0g', `0x${'11'.repeat(33)}`], names: ['startKey'] },
  rawTx: {
    valid: '0x',
    bad: [...WRONG_TYPES, '0x1', '0xzz', 'abcd', '0x', '0x00', '0xc0', '0xdeadbeef', `0x02${'ff'.repeat(40)}`],
    names: ['transaction'],
  },
  string: { valid: 'x', bad: [123, {}, [], true, DEEP, DEEP_OBJECT], names: ['string'] },
  filterId: { valid: '0x1', bad: [123, {}, [], true, DEEP], names: ['filter'] },
  filter: {
    valid: {},
    bad: [
      ...NOT_OBJECT,
      { fromBlock: 'lates' },
      { toBlock: 123 },
      { fromBlock: `0x${'f'.repeat(70)}` },
      { address: '0x12' },
      { address: [A20, '0x12'] },
      { address: {} },
      { topics: 'x' },
      { topics: ['0x12'] },
      { topics: [[H32, '0x1']] },
      { topics: [{}] },
      { blockHash: '0x12' },
      { blockHash: H32, fromBlock: 'latest' },
    ],
    names: ['filter'],
  },
  blockCount: {
    valid: '0x1',
    bad: ['0x0', '0x401', 'x', {}, [], true, -1, '-0x1', `0x${'f'.repeat(70)}`],
    names: ['blockCount', 'block count'],
  },
  percentiles: {
    valid: [],
    bad: ['x', {}, 12, [101], [-1], ['x'], [50, 10], [DEEP], [{}]],
    names: ['percentile'],
  },
  logLevel: { valid: 'INFO', bad: ['NOPE', '', 123, {}, [], DEEP], names: ['log level', 'string'] },
  logFilters: { valid: ['x'], bad: ['x', [1], {}, 12], names: ['logFilters'] },
  call: {
    valid: {},
    bad: [
      ...NOT_OBJECT,
      { from: '0x12' },
      { to: 123 },
      // Leading zeros are no error: Besu reads a call's numbers leniently ("0x000002").
      { gas: '0x' },
      { value: '-0x1' },
      { data: '0x1' },
      { input: '0x11', data: '0x22' },
      { accessList: 'x' },
      { accessList: [{ address: '0x12' }] },
      { type: '0x9' },
      { nonce: 1.5 },
      { maxFeePerGas: {} },
      { authorizationList: [{}] },
    ],
    names: ['transaction', 'call'],
  },
  stateOverrides: {
    valid: {},
    bad: [
      'x',
      123,
      [],
      DEEP,
      { '0x12': {} },
      { [A20]: { balance: '0xg1' } },
      { [A20]: 'x' },
      { [A20]: { code: '0x1' } },
      { [A20]: { state: { '0x12': H32 } } },
    ],
    names: ['override'],
  },
  blockOverrides: {
    valid: {},
    bad: ['x', 123, [], DEEP, { number: '0x01' }, { time: 'x' }, { feeRecipient: '0x12' }, { prevRandao: '0x12' }],
    names: ['override'],
  },
  traceConfig: {
    valid: {},
    bad: ['x', 123, [], true, DEEP, { disableStack: 'yes' }, { tracer: 123 }, { tracerConfig: 'x' }],
    names: ['config'],
  },
  storageKeys: {
    valid: [],
    bad: ['x', {}, 12, ['0x'], [`0x${'1'.repeat(65)}`], [123], ['zz'], [DEEP]],
    names: ['storage key'],
  },
  storageRequests: {
    valid: {},
    bad: ['x', [], 123, DEEP, { '0x12': [] }, { [A20]: 'x' }, { [A20]: ['0xzz'] }],
    names: ['requests'],
  },
  rawBlock: {
    valid: '0x',
    bad: [...WRONG_TYPES, '0x1', '0xzz', 'abcd', '0x', '0x00', '0xc0', '0xdeadbeef'],
    names: ['block'],
  },
  traceTypes: { valid: ['trace'], bad: ['x', {}, 123, [LONG], ['nope'], [123], [DEEP]], names: ['trace type'] },
  callMany: {
    valid: [],
    bad: ['x', {}, 123, [1], [[{}]], [[{}, ['nope']]], [[{ from: '0x12' }, []]], [[{}, [], 1]], [DEEP]],
    names: ['calls', 'call'],
  },
  fileTraceOptions: {
    valid: {},
    bad: [...NOT_OBJECT, { txHash: '0x12' }, { disableStack: 'yes' }, { enableMemory: 1 }],
    names: ['trace options'],
  },
  txFilter: {
    valid: {},
    bad: [...NOT_OBJECT, { nonce: { eq: 'x' } }, { bogus: {} }, { from: 'x' }],
    names: ['filter', 'field'],
  },
  indices: { valid: ['0x0'], bad: ['x', {}, 123, ['zz'], [{}], [DEEP]], names: ['indices'] },
  traceFilter: {
    valid: {},
    bad: [
      'x',
      [],
      123,
      DEEP,
      { fromBlock: 'lates' },
      { fromAddress: 'x' },
      { fromAddress: ['0x12'] },
      { after: 'x' },
      { count: -1 },
    ],
    names: ['filter'],
  },
  simulation: {
    valid: { blockStateCalls: [] },
    bad: [
      ...NOT_OBJECT,
      {},
      { blockStateCalls: 'x' },
      { blockStateCalls: [{ calls: [{ from: '0x12' }] }] },
      { blockStateCalls: [{ blockOverrides: { number: '0x01' } }] },
      { blockStateCalls: [{ stateOverrides: { '0x12': {} } }] },
      { blockStateCalls: [], validation: 'yes' },
      { blockStateCalls: [], returnFullTransactions: 1 },
    ],
    names: ['simulation', 'blockStateCalls'],
  },
  payloadAttributes: {
    valid: { timestamp: '0x1', prevRandao: H32, suggestedFeeRecipient: A20 },
    bad: [
      ...NOT_OBJECT,
      {},
      { timestamp: '0x01', prevRandao: H32, suggestedFeeRecipient: A20 },
      { timestamp: '0x1', prevRandao: '0x12', suggestedFeeRecipient: A20 },
      { timestamp: '0x1', prevRandao: H32, suggestedFeeRecipient: '0x12' },
      { timestamp: '0x1', prevRandao: H32, suggestedFeeRecipient: A20, withdrawals: 'x' },
      WITHDRAWAL_NULL,
      { timestamp: '0x1', prevRandao: H32, suggestedFeeRecipient: A20, withdrawals: [{}] },
      { timestamp: '0x1', prevRandao: H32, suggestedFeeRecipient: A20, parentBeaconBlockRoot: '0x12' },
    ],
    names: ['payloadAttributes'],
  },
  rawTxs: { valid: [], bad: ['x', {}, 12, ['0x1'], ['zz'], [123], [DEEP]], names: ['transactions'] },
  txObject: { valid: undefined, bad: ['x', 123], names: [] },
  typedData: {
    valid: {},
    bad: ['x', '{', 123, [], true, DEEP, { types: 'x' }, { types: {}, primaryType: 'Mail', domain: {}, message: {} }],
    names: ['typedData'],
  },
  subscriptionType: { valid: 'newHeads', bad: ['nope', '', 123, {}, [], DEEP], names: [] },
  subscriptionArg: { valid: undefined, bad: [], names: [] },
  subscriptionId: { valid: '0x1', bad: [123, {}, [], true, DEEP], names: [] },
  /** A dev-tool number: hex (leading zeros allowed), a JSON number or a decimal string. */
  amount: { valid: '0x1', bad: [{}, [], true, -1, 1.5, DEEP, '', '0x', '0xzz', '-0x1', 'abc', 'latest'], names: [] },
  word: { valid: '0x1', bad: [...WRONG_TYPES, '', '0xzz', 'abcd', `0x${'1'.repeat(65)}`], names: [] },
  mineOptions: { valid: '0x1', bad: ['x', true, [], DEEP, { timestamp: 'x' }, { blocks: {} }], names: [] },
  resetOptions: { valid: {}, bad: ['x', 123, [], true, DEEP, { forking: {} }], names: [] },
  reorgPairs: { valid: [], bad: ['x', 123, {}, true, DEEP, [['0x', 0, 1]], [[{}, 'x']], [[5, 0]]], names: [] },
  // The MINER setters' values; the valid ones are the dev chain's defaults, so the runs change nothing.
  wei: { valid: '0x3e8', bad: [...WRONG_TYPES, 12, '', '0x', 'zz', '0xzz', `0x1${'0'.repeat(64)}`], names: [] },
  extraData: { valid: '0x', bad: [...WRONG_TYPES, 12, 'zz', `0x${'ab'.repeat(33)}`], names: [] },
  targetGasLimit: { valid: 60_000_000, bad: [...WRONG_TYPES, 'x', 1, -1, 1.5, '0xzz'], names: [] },
} satisfies Record<string, Kind>

type KindName = keyof typeof KINDS
/** A parameter list: kind names, optional ones ending in `?`. */
type Spec = `${KindName}${'' | '?'}`[]

/** Every method the HTTP listener serves, with its parameters. */
/** The methods the QBFT and IBFT groups share, under either prefix. */
function bftSpecs(prefix: 'qbft' | 'ibft'): Record<string, Spec> {
  const specs: Record<string, Spec> = {
    getValidatorsByBlockNumber: ['blockTag'],
    getValidatorsByBlockHash: ['hash'],
    proposeValidatorVote: ['address', 'bool'],
    discardValidatorVote: ['address'],
    getPendingVotes: [],
    getSignerMetrics: ['blockTag?', 'blockTag?'],
  }
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [`${prefix}_${name}`, spec]))
}

const SPECS: Record<string, Spec> = {
  eth_chainId: [],
  eth_blockNumber: [],
  eth_syncing: [],
  eth_mining: [],
  eth_coinbase: [],
  eth_hashrate: [],
  eth_accounts: [],
  eth_protocolVersion: [],
  eth_gasPrice: [],
  eth_maxPriorityFeePerGas: [],
  eth_blobBaseFee: [],
  eth_sendTransaction: ['txObject?'],
  eth_newBlockFilter: [],
  eth_newPendingTransactionFilter: [],
  eth_getBalance: ['address', 'block?'],
  eth_getCode: ['address', 'block?'],
  eth_getStorageAt: ['address', 'index', 'block?'],
  eth_getTransactionCount: ['address', 'block?'],
  eth_getBlockByHash: ['hash', 'bool?'],
  eth_getBlockByNumber: ['blockTag', 'bool?'],
  eth_getBlockTransactionCountByHash: ['hash'],
  eth_getBlockTransactionCountByNumber: ['blockTag'],
  eth_getUncleCountByBlockHash: ['hash'],
  eth_getUncleCountByBlockNumber: ['blockTag'],
  eth_getUncleByBlockHashAndIndex: ['hash', 'index'],
  eth_getUncleByBlockNumberAndIndex: ['blockTag', 'index'],
  eth_getBlockReceipts: ['block'],
  eth_getBlockAccessList: ['block'],
  eth_getBlockAccessListByBlockNumber: ['blockTag'],
  eth_getBlockAccessListByBlockHash: ['hash'],
  eth_getBlockAccessListByNumber: ['blockTag'],
  eth_sendRawTransaction: ['rawTx'],
  eth_getTransactionByHash: ['hash'],
  eth_getTransactionByBlockHashAndIndex: ['hash', 'index'],
  eth_getTransactionByBlockNumberAndIndex: ['blockTag', 'index'],
  eth_getTransactionReceipt: ['hash'],
  eth_feeHistory: ['blockCount', 'blockTag', 'percentiles?'],
  eth_getLogs: ['filter'],
  eth_newFilter: ['filter'],
  eth_getFilterChanges: ['filterId'],
  eth_getFilterLogs: ['filterId'],
  eth_uninstallFilter: ['filterId'],
  eth_call: ['call', 'block?', 'stateOverrides?', 'blockOverrides?'],
  eth_estimateGas: ['call', 'block?', 'stateOverrides?'],
  eth_createAccessList: ['call', 'block?', 'stateOverrides?'],
  eth_simulateV1: ['simulation', 'block?'],
  eth_getProof: ['address', 'storageKeys', 'block?'],
  eth_getStorageValues: ['storageRequests', 'block?'],
  eth_config: [],
  eth_capabilities: [],
  eth_baseFee: [],
  debug_traceTransaction: ['hash', 'traceConfig?'],
  debug_traceBlockByNumber: ['blockTag', 'traceConfig?'],
  debug_traceBlockByHash: ['hash', 'traceConfig?'],
  debug_traceBlock: ['rawBlock', 'traceConfig?'],
  debug_traceCall: ['call', 'block?', 'traceConfig?'],
  debug_storageRangeAt: ['block', 'index', 'address', 'hashKey', 'index'],
  debug_getRawHeader: ['block'],
  debug_getRawBlock: ['block'],
  debug_getRawReceipts: ['block'],
  debug_getRawBlockAccessList: ['block'],
  debug_getRawTransaction: ['hash'],
  debug_getBadBlocks: [],
  debug_accountAt: ['block', 'index', 'address'],
  debug_accountRange: ['block', 'index', 'hashKey', 'index'],
  debug_setHead: ['blockTag'],
  debug_replayBlock: ['blockTag'],
  debug_resyncWorldstate: [],
  debug_resyncWorldState: [],
  debug_metrics: [],
  debug_standardTraceBlockToFile: ['hash', 'fileTraceOptions?'],
  debug_standardTraceBadBlockToFile: ['hash', 'fileTraceOptions?'],
  trace_transaction: ['hash'],
  trace_block: ['blockTag'],
  trace_get: ['hash', 'indices'],
  trace_replayTransaction: ['hash', 'traceTypes'],
  trace_replayBlockTransactions: ['blockTag', 'traceTypes'],
  trace_call: ['call', 'traceTypes', 'block?'],
  trace_filter: ['traceFilter'],
  trace_callMany: ['callMany', 'block?'],
  trace_rawTransaction: ['rawTx', 'traceTypes'],
  ...bftSpecs('qbft'),
  qbft_getRequestTimeoutSeconds: [],
  ...bftSpecs('ibft'),
  clique_getSigners: ['blockTag?'],
  clique_getSignersAtHash: ['hash'],
  clique_propose: ['address', 'bool'],
  miner_setCoinbase: ['address'],
  miner_setEtherbase: ['address'],
  miner_setMinGasPrice: ['wei'],
  miner_setMinPriorityFee: ['wei'],
  miner_setExtraData: ['extraData'],
  miner_changeTargetGasLimit: ['targetGasLimit'],
  miner_getMinGasPrice: [],
  miner_getMinPriorityFee: [],
  miner_getExtraData: [],
  clique_discard: ['address'],
  clique_proposals: [],
  clique_getSignerMetrics: ['blockTag?', 'blockTag?'],
  txpool_content: [],
  txpool_contentFrom: ['address'],
  txpool_status: [],
  txpool_besuTransactions: [],
  txpool_basaltTransactions: [],
  txpool_clientTransactions: [],
  txpool_besuPendingTransactions: ['index?', 'txFilter?'],
  txpool_basaltPendingTransactions: ['index?', 'txFilter?'],
  txpool_clientPendingTransactions: ['index?', 'txFilter?'],
  txpool_besuStatistics: [],
  txpool_basaltStatistics: [],
  txpool_clientStatistics: [],
  testing_buildBlockV1: ['hash', 'payloadAttributes', 'rawTxs?', 'data?'],
  net_version: [],
  net_listening: [],
  net_peerCount: [],
  net_enode: [],
  net_services: [],
  web3_clientVersion: [],
  web3_sha3: ['data'],
  rpc_modules: [],
  admin_nodeInfo: [],
  admin_peers: [],
  admin_addPeer: ['string'],
  admin_removePeer: ['string'],
  admin_changeLogLevel: ['logLevel', 'logFilters?'],
  admin_generateLogBloomCache: ['blockTag?', 'blockTag?'],
  admin_logsRemoveCache: ['blockTag?', 'blockTag?'],
  admin_logsRepairCache: ['index?'],
  eth_getAccountInfo: ['address', 'block?'],
  evm_mine: ['mineOptions?'],
  hardhat_mine: ['amount?', 'amount?'],
  anvil_mine: ['amount?', 'amount?'],
  evm_setAutomine: ['bool'],
  anvil_setAutomine: ['bool'],
  hardhat_getAutomine: [],
  anvil_getAutomine: [],
  evm_setIntervalMining: ['amount'],
  anvil_setIntervalMining: ['amount'],
  anvil_setBlockTimestampInterval: ['amount'],
  anvil_removeBlockTimestampInterval: [],
  evm_increaseTime: ['amount'],
  anvil_increaseTime: ['amount'],
  evm_setNextBlockTimestamp: ['amount'],
  anvil_setNextBlockTimestamp: ['amount'],
  evm_setTime: ['amount'],
  anvil_setTime: ['amount'],
  evm_snapshot: [],
  anvil_snapshot: [],
  evm_revert: ['amount'],
  anvil_revert: ['amount'],
  hardhat_reset: ['resetOptions?'],
  anvil_reset: ['resetOptions?'],
  hardhat_setBalance: ['address', 'amount'],
  anvil_setBalance: ['address', 'amount'],
  anvil_addBalance: ['address', 'amount'],
  hardhat_setCode: ['address', 'data'],
  anvil_setCode: ['address', 'data'],
  hardhat_setNonce: ['address', 'amount'],
  anvil_setNonce: ['address', 'amount'],
  hardhat_setStorageAt: ['address', 'word', 'word'],
  anvil_setStorageAt: ['address', 'word', 'word'],
  hardhat_setCoinbase: ['address'],
  anvil_setCoinbase: ['address'],
  hardhat_setNextBlockBaseFeePerGas: ['amount'],
  anvil_setNextBlockBaseFeePerGas: ['amount'],
  evm_setBlockGasLimit: ['amount'],
  hardhat_setMinGasPrice: ['amount'],
  anvil_setMinGasPrice: ['amount'],
  hardhat_impersonateAccount: ['address'],
  anvil_impersonateAccount: ['address'],
  hardhat_stopImpersonatingAccount: ['address'],
  anvil_stopImpersonatingAccount: ['address'],
  anvil_autoImpersonateAccount: ['bool'],
  hardhat_dropTransaction: ['hash'],
  anvil_dropTransaction: ['hash'],
  anvil_dropAllTransactions: [],
  anvil_nodeInfo: [],
  hardhat_metadata: [],
  anvil_metadata: [],
  anvil_dumpState: [],
  anvil_dealERC20: ['address', 'address', 'amount'],
  anvil_setERC20Allowance: ['address', 'address', 'address', 'amount'],
  anvil_setChainId: ['amount'],
  anvil_rollback: ['amount?'],
  anvil_reorg: ['amount', 'reorgPairs'],
  evm_mine_detailed: ['mineOptions?'],
  anvil_mine_detailed: ['mineOptions?'],
  anvil_removePoolTransactions: ['address'],
  anvil_setBlockGasLimit: ['amount'],
  anvil_getIntervalMining: [],
  anvil_getGenesisTime: [],
  evm_setAccountNonce: ['address', 'amount'],
  ots_getApiLevel: [],
  ots_hasCode: ['address', 'block?'],
  ots_getBlockDetails: ['blockTag'],
  ots_getBlockDetailsByHash: ['hash'],
  ots_getBlockTransactions: ['blockTag', 'index', 'index'],
  ots_getTransactionError: ['hash'],
  ots_traceTransaction: ['hash'],
  ots_getInternalOperations: ['hash'],
  ots_getTransactionBySenderAndNonce: ['address', 'index'],
  ots_getContractCreator: ['address'],
  ots_searchTransactionsBefore: ['address', 'index', 'index'],
  ots_searchTransactionsAfter: ['address', 'index', 'index'],
  eth_sendUnsignedTransaction: ['call'],
  eth_sign: ['address', 'data'],
  personal_sign: ['data', 'address'],
  eth_signTypedData_v4: ['address', 'typedData'],
  eth_signTransaction: ['call'],
  eth_fillTransaction: ['call'],
  eth_sendRawTransactionSync: ['rawTx', 'index?'],
  eth_sendTransactionSync: ['call', 'index?'],
  eth_getTransactionBySenderAndNonce: ['address', 'index'],
  eth_getRawTransactionByHash: ['hash'],
  txpool_inspect: [],
  hardhat_setPrevRandao: ['word'],
  hardhat_setLoggingEnabled: ['bool'],
  anvil_setLoggingEnabled: ['bool'],
  anvil_loadState: ['string'],
  anvil_setRpcUrl: ['string'],
}

/** Besu's texts for a parameter it cannot read (its RpcErrorType), written out here on purpose. */
const T = {
  address: 'Invalid address params',
  addressHash: 'Invalid address hash params',
  block: 'Invalid block, unable to parse RLP',
  blockCount: 'Invalid block count params',
  blockHash: 'Invalid block hash params',
  blockIndex: 'Invalid block index params',
  blockNumber: 'Invalid block number params',
  call: 'Invalid call params',
  count: 'Invalid number of params',
  data: 'Invalid data params',
  dataHash: 'Invalid data hash params',
  filter: 'Invalid filter params',
  logFilter: 'Invalid log filter params',
  logLevel: 'Invalid log level params (missing or incorrect)',
  maxResults: 'Invalid max results params',
  nonce: 'Invalid nonce params',
  params: 'Invalid params',
  pendingTransactions: 'Invalid pending transactions params',
  position: 'Invalid position params',
  proposal: 'Invalid proposal params',
  percentiles: 'Invalid reward percentiles params',
  returnComplete: 'Invalid return complete transaction params',
  storageKeys: 'Invalid storage keys params',
  traceCallMany: 'Invalid trace call many params',
  traceNumbers: 'Invalid trace numbers params',
  traceType: 'Invalid trace type params',
  transaction: 'Invalid transaction params (missing or incorrect)',
  txHash: 'Invalid transaction hash params',
  txIndex: 'Invalid transaction index params',
  txLimit: 'Invalid transaction limit params',
  minGasPrice: 'Invalid min gas price params',
  minPriorityFee: 'Invalid min priority fee params',
  extraData: 'Invalid extra data params',
  targetGasLimit: 'Invalid target gas limit params',
  txTrace: 'Invalid transaction trace params',
}

/**
 * For each method Besu also serves: Besu's text for a bad or missing value of each argument,
 * `count` where Besu counts the arguments first (any other number: `Invalid number of params`), and
 * `required` for the block Besu requires and reads first where Basalt defaults it to latest (its
 * absence is then the error whenever another argument is bad). Besu reads no argument past the last
 * one a method takes, so extra ones are ignored elsewhere.
 */
interface BesuRule {
  args: string[]
  count?: number
  /** Besu's text for another number of arguments, when not `Invalid number of params`. */
  countText?: string
  required?: number[]
}
const BESU: Record<string, BesuRule> = {
  eth_getBalance: { args: [T.address, T.block], required: [1] },
  eth_getCode: { args: [T.address, T.block], required: [1] },
  eth_getTransactionCount: { args: [T.address, T.block], required: [1] },
  eth_getStorageAt: { args: [T.address, T.position, T.block], required: [2] },
  eth_getProof: { args: [T.address, T.storageKeys, T.block], required: [2] },
  eth_getBlockByHash: { args: [T.blockHash, T.returnComplete] },
  eth_getBlockByNumber: { args: [T.block, T.returnComplete] },
  eth_getBlockTransactionCountByHash: { args: [T.blockHash] },
  eth_getBlockTransactionCountByNumber: { args: [T.block] },
  eth_getUncleCountByBlockHash: { args: [T.blockHash] },
  eth_getUncleCountByBlockNumber: { args: [T.block] },
  eth_getUncleByBlockHashAndIndex: { args: [T.blockHash, T.blockIndex] },
  eth_getUncleByBlockNumberAndIndex: { args: [T.block, T.blockIndex] },
  eth_getBlockReceipts: { args: [T.block] },
  eth_getBlockAccessList: { args: [T.block] },
  eth_getBlockAccessListByBlockNumber: { args: [T.block] },
  eth_getBlockAccessListByBlockHash: { args: [T.blockHash] },
  eth_getBlockAccessListByNumber: { args: [T.block] },
  eth_sendRawTransaction: { args: [T.transaction], count: 1 },
  eth_getTransactionByHash: { args: [T.txHash] },
  eth_getTransactionByBlockHashAndIndex: { args: [T.blockHash, T.txIndex] },
  eth_getTransactionByBlockNumberAndIndex: { args: [T.block, T.txIndex] },
  eth_getTransactionReceipt: { args: [T.txHash] },
  eth_getRawTransactionByHash: { args: [T.txHash] },
  eth_getTransactionBySenderAndNonce: { args: [T.address, T.nonce], count: 2 },
  eth_feeHistory: { args: [T.blockCount, T.block, T.percentiles] },
  eth_getLogs: { args: [T.filter] },
  eth_newFilter: { args: [T.filter] },
  eth_getFilterChanges: { args: [T.filter] },
  eth_getFilterLogs: { args: [T.filter] },
  eth_uninstallFilter: { args: [T.filter] },
  eth_call: { args: [T.call, T.block, T.call, T.call], required: [1] },
  eth_estimateGas: { args: [T.call, T.block, T.call] },
  eth_createAccessList: { args: [T.call, T.block, T.call] },
  eth_simulateV1: { args: [T.params, T.block], required: [1] },
  web3_sha3: { args: [T.data], count: 1 },
  debug_traceTransaction: { args: [T.txHash, T.txTrace] },
  debug_traceBlockByNumber: { args: [T.block, T.txTrace] },
  debug_traceBlockByHash: { args: [T.blockHash, T.txTrace] },
  debug_traceBlock: { args: [T.block, T.txTrace] },
  debug_traceCall: { args: [T.call, T.block, T.txTrace] },
  debug_storageRangeAt: { args: [T.block, T.txIndex, T.address, T.dataHash, T.txLimit] },
  debug_getRawHeader: { args: [T.block] },
  debug_getRawBlock: { args: [T.block] },
  debug_getRawReceipts: { args: [T.block] },
  debug_getRawBlockAccessList: { args: [T.block] },
  debug_getRawTransaction: { args: [T.txHash] },
  debug_accountAt: { args: [T.block, T.txIndex, T.address] },
  debug_accountRange: { args: [T.block, T.txIndex, T.addressHash, T.maxResults] },
  debug_setHead: { args: [T.block] },
  debug_replayBlock: { args: [T.block] },
  debug_standardTraceBlockToFile: { args: [T.blockHash, T.txTrace] },
  debug_standardTraceBadBlockToFile: { args: [T.blockHash, T.txTrace] },
  trace_transaction: { args: [T.txHash] },
  trace_block: { args: [T.block] },
  trace_get: { args: [T.txHash, T.traceNumbers] },
  trace_replayTransaction: { args: [T.txHash, T.traceType] },
  trace_replayBlockTransactions: { args: [T.block, T.traceType] },
  trace_call: { args: [T.call, T.traceType, T.block] },
  trace_filter: { args: [T.filter] },
  trace_callMany: { args: [T.traceCallMany, T.block] },
  trace_rawTransaction: { args: [T.transaction, T.traceType], count: 2 },
  txpool_contentFrom: { args: [T.address] },
  // Besu's spelling, and Basalt's and the neutral one of the same method.
  ...Object.fromEntries(
    ['besu', 'basalt', 'client'].map((name) => [
      `txpool_${name}PendingTransactions`,
      { args: [T.txLimit, T.pendingTransactions] },
    ]),
  ),
  admin_addPeer: { args: [T.params], count: 1, countText: T.params },
  admin_removePeer: { args: [T.params], count: 1, countText: T.params },
  admin_changeLogLevel: { args: [T.logLevel, T.logFilter] },
  admin_generateLogBloomCache: { args: [T.block, T.block] },
  admin_logsRemoveCache: { args: [T.block, T.block] },
  admin_logsRepairCache: { args: [T.block] },
  clique_getSigners: { args: [T.block] },
  clique_getSignersAtHash: { args: [T.blockHash] },
  clique_propose: { args: [T.address, T.proposal] },
  miner_setCoinbase: { args: [T.address] },
  miner_setEtherbase: { args: [T.address] },
  miner_setMinGasPrice: { args: [T.minGasPrice] },
  miner_setMinPriorityFee: { args: [T.minPriorityFee] },
  miner_setExtraData: { args: [T.extraData] },
  miner_changeTargetGasLimit: { args: [T.targetGasLimit] },
  clique_discard: { args: [T.address] },
  clique_getSignerMetrics: { args: [T.blockNumber, T.blockNumber] },
  ...besuBft('qbft'),
  ...besuBft('ibft'),
  // Methods without arguments: Besu reads none, so extra ones are ignored.
  ...Object.fromEntries(
    [
      'eth_chainId',
      'eth_blockNumber',
      'eth_syncing',
      'eth_mining',
      'eth_coinbase',
      'eth_hashrate',
      'eth_accounts',
      'eth_protocolVersion',
      'eth_gasPrice',
      'eth_maxPriorityFeePerGas',
      'eth_blobBaseFee',
      'eth_newBlockFilter',
      'eth_newPendingTransactionFilter',
      'eth_config',
      'net_version',
      'net_listening',
      'net_peerCount',
      'net_enode',
      'net_services',
      'web3_clientVersion',
      'rpc_modules',
      'debug_getBadBlocks',
      'debug_metrics',
      'debug_resyncWorldstate',
      'debug_resyncWorldState',
      'admin_nodeInfo',
      'admin_peers',
      'clique_proposals',
      'qbft_getPendingVotes',
      'ibft_getPendingVotes',
      'qbft_getRequestTimeoutSeconds',
      'txpool_besuTransactions',
      'txpool_besuStatistics',
      'miner_getMinGasPrice',
      'miner_getMinPriorityFee',
      'miner_getExtraData',
    ].map((m) => [m, { args: [] }]),
  ),
}

function besuBft(prefix: 'qbft' | 'ibft'): Record<string, BesuRule> {
  return {
    [`${prefix}_getValidatorsByBlockNumber`]: { args: [T.block] },
    [`${prefix}_getValidatorsByBlockHash`]: { args: [T.blockHash] },
    [`${prefix}_proposeValidatorVote`]: { args: [T.address, T.proposal] },
    [`${prefix}_discardValidatorVote`]: { args: [T.address] },
    [`${prefix}_getSignerMetrics`]: { args: [T.blockNumber, T.blockNumber] },
  }
}

/** Methods served over WebSocket only: Besu refuses their malformed requests with -32600. */
const WS_SPECS: Record<string, Spec> = {
  eth_subscribe: ['subscriptionType', 'subscriptionArg?'],
  eth_unsubscribe: ['subscriptionId'],
}

/** Methods battered elsewhere: the Engine API lives on its own JWT listener. */
const ELSEWHERE = new Set([
  // They stop and start the dev sealer this file's node needs: test/e2e/miner.test.ts.
  'miner_start',
  'miner_stop',
  'engine_exchangeCapabilities',
  'engine_exchangeTransitionConfigurationV1',
  'engine_getClientVersionV1',
  'engine_getBlobsV1',
  'engine_getBlobsV2',
  'engine_getBlobsV3',
  'engine_forkchoiceUpdatedV1',
  'engine_forkchoiceUpdatedV2',
  'engine_forkchoiceUpdatedV3',
  'engine_getPayloadV1',
  'engine_getPayloadV2',
  'engine_getPayloadV3',
  'engine_getPayloadV4',
  'engine_getPayloadV5',
  'engine_getPayloadBodiesByHashV1',
  'engine_getPayloadBodiesByRangeV1',
  'engine_getPayloadBodiesByHashV2',
  'engine_getPayloadBodiesByRangeV2',
  'engine_newPayloadV1',
  'engine_newPayloadV2',
  'engine_newPayloadV3',
  'engine_newPayloadV4',
])

/**
 * Methods whose arguments are each answered in an entry of their own (`{index, success,
 * errorMessage}`), so a bad argument is no error of the call: tested in
 * test/e2e/debugNode.test.ts and src/rpc/debug/nodeMethods.test.ts.
 */
const PER_ARGUMENT = new Set(['debug_batchSendRawTransaction'])

/**
 * Besu's groups of features Basalt does not have (PRIV, EEA, PLUGINS): Besu's answer with the
 * feature off (PLUGINS checks its one parameter first), tested in test/e2e/besuConfig.test.ts; and
 * PERM, whose answers depend on the allowlist files, tested in test/e2e/permissioning.test.ts.
 */
const FEATURE_OFF = new Set(
  methodGroups()
    .filter((g) => ['PERM', 'PRIV', 'EEA', 'PLUGINS'].includes(g.group))
    .flatMap((g) => g.methods.map((m) => m.name)),
)

/**
 * Failures known and reported to the method's owner, by `method (why)`; the battery skips them so
 * it keeps guarding everything else. Remove an entry once fixed.
 */
const KNOWN_ISSUES: Record<string, string> = {}

/** Besu answers these with its own code whatever the parameters. */
const OTHER_CODES: Record<string, number[]> = { eth_sendTransaction: [-32604], eth_sendTransactionSync: [-32604] }

interface Case {
  method: string
  params: unknown[]
  why: string
  /** The argument index the message must name, when one value is at fault. */
  arg?: number
  names?: string[]
  codes: number[]
  /** The argument left out, when one is. */
  missing?: number
  /** A negative number where a block or block hash is read: Besu parses it, then refuses the number. */
  isNegativeBlock?: boolean
  /** Besu's exact error for the case; `null` when Besu ignores the fault (extra arguments). */
  besu?: { code: number; message: string } | null
}

function parse(spec: Spec) {
  return spec.map((s) => ({ kind: KINDS[s.replace('?', '') as KindName] as Kind, isOptional: s.endsWith('?') }))
}

/** The battery for one method: each bad value in each position, counts, nulls, extra arguments. */
function casesFor(method: string, spec: Spec, codes: number[]): Case[] {
  const params = parse(spec)
  const valid = params.map((p) => p.kind.valid)
  const required = params.filter((p) => !p.isOptional).length
  const out: Case[] = []
  const allowed = [...codes, ...(OTHER_CODES[method] ?? [])]
  params.forEach((p, i) => {
    for (const bad of p.kind.bad) {
      const args = [...valid.slice(0, i), bad, ...valid.slice(i + 1)]
      out.push({
        method,
        params: args,
        why: `argument ${i} = ${short(bad)}`,
        arg: i,
        names: p.kind.names,
        codes: allowed,
        isNegativeBlock: p.kind === KINDS.block && typeof bad === 'string' && bad.startsWith('-0x'),
      })
    }
    if (!p.isOptional) {
      out.push({
        method,
        params: [...valid.slice(0, i), null, ...valid.slice(i + 1)],
        why: `null argument ${i}`,
        arg: i,
        names: p.kind.names,
        codes: allowed,
      })
    }
  })
  out.push({ method, params: [...valid, 'latest'], why: 'one argument too many', codes: allowed })
  out.push({ method, params: [...valid, null, null, null, null, null], why: 'five arguments too many', codes: allowed })
  if (required > 0)
    out.push({
      method,
      params: valid.slice(0, required - 1),
      why: 'a required argument missing',
      missing: required - 1,
      codes: allowed,
    })
  const besu = BESU[method]
  return besu ? out.map((c) => ({ ...c, besu: besuAnswer(besu, c) })) : out
}

/** What Besu answers a case of a method it has. */
function besuAnswer(besu: BesuRule, c: Case): Case['besu'] {
  if (besu.count !== undefined && c.params.length !== besu.count)
    return { code: -32602, message: besu.countText ?? T.count }
  const arg = c.arg ?? c.missing
  if (arg === undefined) return null
  const absent = besu.required?.find((r) => r !== arg && c.params[r] == null)
  if (absent !== undefined) return { code: -32602, message: besu.args[absent] as string }
  if (c.isNegativeBlock) return { code: -32602, message: T.blockNumber }
  return { code: -32602, message: besu.args[arg] as string }
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v)
  return s.length > 40 ? `${s.slice(0, 40)}…` : s
}

/** What is wrong with one answer to a case, or undefined when it is right. */
function judge(c: Case, status: number, json: any): string | undefined {
  if (status >= 500) return `HTTP ${status}`
  if (!json || typeof json !== 'object') return `no JSON-RPC response (HTTP ${status})`
  if (c.besu !== undefined && c.besu !== null) {
    const got = json.error ? { code: json.error.code, message: json.error.message } : json.result
    if (json.error?.data !== undefined) return `data beside Besu's text: ${short(json.error)}`
    return Bun.deepEquals(got, c.besu) ? undefined : `${short(got)}, Besu: ${short(c.besu)}`
  }
  if (!('error' in json)) return `a result: ${short(json.result)}`
  const { code, message } = json.error
  if (code === -32603) return `Internal error: ${message}`
  if (!c.codes.includes(code)) return `code ${code} (${message}), expected ${c.codes.join(' or ')}`
  if (typeof message !== 'string' || message.length === 0) return 'no message'
  if (message.length > 300) return `a ${message.length}-character message`
  if (/is not an object|is not a function|Cannot read propert|undefined is not/.test(message)) {
    return `an internal failure in the message: ${message}`
  }
  const isSpecific = code !== -32602 || c.arg === undefined
  const lower = message.toLowerCase()
  const namesIt = lower.includes(`argument ${c.arg}`) || (c.names ?? []).some((n) => lower.includes(n.toLowerCase()))
  if (!isSpecific && !namesIt) return `message does not name argument ${c.arg}: ${message}`
  return undefined
}

/** Whether two answers agree: the same error, or both a result (a new filter id differs each time). */
type Answer = { error?: unknown; result?: unknown } | undefined
function sameAnswer(got: Answer, want: Answer): string | undefined {
  const isSame =
    got?.error || want?.error
      ? Bun.deepEquals(got?.error, want?.error)
      : got !== undefined && want !== undefined && 'result' in got && 'result' in want
  return isSame ? undefined : `${short(got)}, without the extra arguments ${short(want)}`
}

let node: StartedNode
let headBefore: { number: string; hash: string }
/** The transaction mined on purpose before the batteries, and its block. */
let txHash: string
let blockHash: string
let id = 1

async function post(
  body: string | Uint8Array,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  const res = await fetch(node.url, { method: 'POST', headers, body })
  const text = await res.text()
  let json: any
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: res.status, json, text }
}

const call = (method: string, params: unknown) => post(JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }))

async function head() {
  const { json } = await call('eth_getBlockByNumber', ['latest', false])
  return { number: json.result.number as string, hash: json.result.hash as string }
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) : 0
}

/** A WebSocket that records what it receives; resolves once open. */
function openWs(url = node.wsUrl) {
  const ws = new WebSocket(url)
  const received: string[] = []
  let closeCode: number | undefined
  ws.onmessage = (e) => received.push(String(e.data))
  ws.onclose = (e) => {
    closeCode = e.code
  }
  const opened = new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('websocket error'))
  })
  const next = async (timeoutMs = 5000): Promise<any> => {
    const start = received.length
    const deadline = Date.now() + timeoutMs
    while (received.length === start && Date.now() < deadline && closeCode === undefined) await Bun.sleep(5)
    return received.length > start ? JSON.parse(received[start]) : undefined
  }
  const closed = async (timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs
    while (closeCode === undefined && Date.now() < deadline) await Bun.sleep(5)
    return closeCode
  }
  return { ws, opened, next, closed, received }
}

beforeAll(async () => {
  node = await startNode({
    args: [
      '--rpc-http-api',
      'ETH,NET,WEB3,DEBUG,TRACE,TXPOOL,ADMIN,TESTING,MINER,EVM,HARDHAT,ANVIL,OTS,QBFT,IBFT,CLIQUE',
      '--rpc-ws-api',
      'ETH,NET,WEB3',
    ],
  })
  const wallet = new Wallet(node.config.accounts[0].privateKey)
  const raw = await wallet.signTransaction({
    to: A20,
    value: 1n,
    gasLimit: 21_000n,
    gasPrice: 10n ** 10n,
    nonce: 0,
    chainId: 1337n,
  })
  txHash = (await call('eth_sendRawTransaction', [raw])).json.result
  blockHash = (await call('eth_getTransactionReceipt', [txHash])).json.result.blockHash
  headBefore = await head()
  expect(headBefore.hash).toBe(blockHash)
})
afterAll(async () => {
  await node?.cleanup()
})

describe('the method list', () => {
  it('covers every method the dispatcher knows', () => {
    const known = methodGroups().flatMap((g) => g.methods.map((m) => m.name))
    const listed = new Set([
      ...Object.keys(SPECS),
      ...Object.keys(WS_SPECS),
      ...ELSEWHERE,
      ...PER_ARGUMENT,
      ...FEATURE_OFF,
    ])
    expect(known.filter((m) => !listed.has(m))).toEqual([])
  })
})

describe('bad parameters over HTTP', () => {
  it("answers every malformed parameter set with -32602: Besu's text for the parameter, or one naming the argument", async () => {
    const failures: string[] = []
    let count = 0
    // Methods listed ahead of their registration are skipped until the dispatcher knows them.
    const known = new Set(methodGroups().flatMap((g) => g.methods.map((m) => m.name)))
    for (const [method, spec] of Object.entries(SPECS)) {
      if (!known.has(method)) continue
      for (const c of casesFor(method, spec, [-32602])) {
        const { status, json } = await call(c.method, c.params)
        // Extra arguments of a method Besu has: ignored, so the answer is that of the others alone.
        const wrong =
          c.besu === null
            ? sameAnswer(json, (await call(c.method, c.params.slice(0, spec.length))).json)
            : judge(c, status, json)
        if (wrong && !KNOWN_ISSUES[`${c.method} (${c.why})`]) failures.push(`${c.method} (${c.why}): ${wrong}`)
        count++
      }
    }
    expect(count).toBeGreaterThan(700)
    expect(failures).toEqual([])
  }, 120_000)

  it("refuses values the codecs accept but the method cannot serve, with Besu's text for the parameter", async () => {
    const cases: [string, unknown[], string][] = [
      ['debug_traceTransaction', [txHash, { tracer: 'noSuchTracer' }], T.txTrace],
      ['debug_traceBlockByHash', [blockHash, { tracer: 'noSuchTracer' }], T.txTrace],
      ['eth_getStorageAt', [A20, `0x1${'0'.repeat(64)}`, 'latest'], T.position],
      ['eth_feeHistory', ['0x1', 'latest', [50, 10]], T.percentiles],
      ['eth_feeHistory', ['0x401', 'latest', []], T.blockCount],
      ['eth_getLogs', [{ blockHash, fromBlock: '0x0' }], T.filter],
      // Filters Besu reads but refuses (PendingTransactionsParams): its plain INVALID_PARAMS text.
      ...[
        { from: { gt: A20 } },
        { to: { lt: A20 } },
        { value: { gt: '0x1', lt: '0x2' } },
        { nonce: { ne: '0x1' } },
        { gas: { action: 'contract_creation' } },
        { to: { action: 'call' } },
      ].map((filter): [string, unknown[], string] => ['txpool_besuPendingTransactions', ['0xa', filter], T.params]),
    ]
    const failures: string[] = []
    for (const [method, params, message] of cases) {
      const { json } = await call(method, params)
      if (!Bun.deepEquals(json.error, { code: -32602, message }))
        failures.push(`${method} ${short(params)}: ${short(json)}`)
    }
    expect(failures).toEqual([])
  })

  it('answers non-array params: an object or a string is an invalid request, null means none', async () => {
    expect((await call('eth_getBalance', { address: A20 })).json.error.code).toBe(-32600)
    expect((await call('eth_getBalance', A20)).json.error.code).toBe(-32600)
    expect((await call('eth_getBalance', 12)).json.error.code).toBe(-32600)
    expect((await call('eth_chainId', null)).json.result).toBe('0x539')
  })
})

describe('bad parameters over WebSocket', () => {
  it('answers malformed subscription requests with an error and keeps the connection', async () => {
    const { ws, opened, next } = openWs()
    await opened
    const failures: string[] = []
    for (const [method, spec] of Object.entries(WS_SPECS)) {
      for (const c of casesFor(method, spec, [-32600, -32602])) {
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: id++, method: c.method, params: c.params }))
        const wrong = judge({ ...c, arg: undefined }, 200, await next())
        if (wrong) failures.push(`${c.method} (${c.why}): ${wrong}`)
      }
    }
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', { address: '0x12' }] }))
    const logs = await next()
    if (logs?.error?.code !== -32600) failures.push(`logs with a bad filter: ${short(logs)}`)
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] }))
    expect((await next()).result).toBe('0x539')
    ws.close()
    expect(failures).toEqual([])
  })
})

describe('bad request bodies over HTTP', () => {
  const parseError = async (body: string | Uint8Array, headers?: Record<string, string>) => {
    const r = await post(body, headers)
    expect(r.status).toBe(400)
    expect(r.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
  }

  it('answers an empty or blank body with a parse error', async () => {
    await parseError('')
    await parseError(' \n\t ')
  })

  it('answers an empty batch and a batch of non-objects with -32600', async () => {
    expect((await post('[]')).json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request' },
    })
    const r = await post('[1,2]')
    expect(r.json).toHaveLength(2)
    for (const e of r.json)
      expect(e).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } })
  })

  it('answers a request with an object id, or no method name, with -32600', async () => {
    expect((await post('{"jsonrpc":"2.0","id":{},"method":"eth_chainId"}')).json.error.code).toBe(-32600)
    expect((await post('{"jsonrpc":"2.0","id":[1],"method":"eth_chainId"}')).json.error.code).toBe(-32600)
    expect((await post('{"jsonrpc":"2.0","id":1,"method":123}')).json).toMatchObject({ id: 1, error: { code: -32600 } })
    expect((await post('{"jsonrpc":"2.0","id":1,"method":{"a":1}}')).json).toMatchObject({
      id: 1,
      error: { code: -32600 },
    })
    expect((await post('{"jsonrpc":"2.0","id":1}')).json).toMatchObject({ id: 1, error: { code: -32600 } })
    expect((await post('"eth_chainId"')).json.error.code).toBe(-32600)
    expect((await post('null')).json.error.code).toBe(-32600)
  })

  it('echoes large ids unchanged', async () => {
    const longId = 'i'.repeat(10_000)
    expect((await post(`{"jsonrpc":"2.0","id":"${longId}","method":"eth_chainId"}`)).json.id).toBe(longId)
    expect((await post('{"jsonrpc":"2.0","id":1e300,"method":"eth_chainId"}')).json.id).toBe(1e300)
    expect((await post('{"jsonrpc":"2.0","id":-5,"method":"eth_chainId"}')).json.id).toBe(-5)
  })

  it('refuses a body over 5 MB with HTTP 413, as Besu by default', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'web3_sha3',
      params: [`0x${'ab'.repeat(5 * 1024 * 1024)}`],
    })
    expect((await post(big)).status).toBe(413)
    const chunk = new TextEncoder().encode(' '.repeat(1024 * 1024))
    let sent = 0
    const stream = new ReadableStream({
      pull: (c) => (sent++ < 10 ? c.enqueue(chunk) : c.close()),
    })
    const res = await fetch(node.url, { method: 'POST', body: stream, headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(413)
  })

  it('refuses a batch above 1024 requests with -32005 and serves one of 1024', async () => {
    const req = (n: number) => ({ jsonrpc: '2.0', id: n, method: 'eth_chainId', params: [] })
    const over = await post(JSON.stringify(Array.from({ length: 2000 }, (_, i) => req(i))))
    expect(over.status).toBeLessThan(500)
    expect(over.json.error).toEqual({ code: -32005, message: 'Number of requests exceeds max batch size' })
    const full = await post(JSON.stringify(Array.from({ length: 1024 }, (_, i) => req(i))))
    expect(full.json).toHaveLength(1024)
  })

  it('answers JSON nested 100,000 levels with a parse error', async () => {
    await parseError('['.repeat(100_000) + ']'.repeat(100_000))
    const deepParams = `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`
    await parseError(deepParams)
    const deepObject = `{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}]}`
    await parseError(deepObject)
  })

  it('answers invalid UTF-8 with a JSON-RPC error, not a crash', async () => {
    const prefix = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"eth_')
    const suffix = new TextEncoder().encode('chainId","params":[]}')
    const inName = new Uint8Array([...prefix, 0xff, 0xfe, 0xc3, ...suffix])
    const r = await post(inName)
    expect(r.status).toBeLessThan(500)
    expect(r.json.error.code).toBe(-32601)
    const outside = new Uint8Array([0xff, 0xfe, 0x80, ...suffix])
    expect((await post(outside)).json.error.code).toBe(-32700)
  })

  it('accepts any content type, as Besu does', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
    expect((await post(body, { 'content-type': 'text/plain' })).json.result).toBe('0x539')
    expect((await post(body, {})).json.result).toBe('0x539')
    expect((await post(body, { 'content-type': 'application/x-www-form-urlencoded' })).json.result).toBe('0x539')
  })

  it('answers GET / with 201 and no body, as Besu does for health checks', async () => {
    const res = await fetch(node.url)
    expect(res.status).toBe(201)
    expect(await res.text()).toBe('')
  })
})

describe('bad frames over WebSocket', () => {
  it('answers garbage text and binary frames with parse errors and keeps the connection', async () => {
    const { ws, opened, next } = openWs()
    await opened
    ws.send('not json at all')
    expect((await next()).error.code).toBe(-32700)
    ws.send(new Uint8Array([0xff, 0x00, 0x13, 0x37]))
    expect((await next()).error.code).toBe(-32700)
    ws.send('['.repeat(100_000) + ']'.repeat(100_000))
    expect((await next()).error.code).toBe(-32700)
    ws.send(new TextEncoder().encode('{"jsonrpc":"2.0","id":9,"method":"eth_chainId","params":[]}'))
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 9, result: '0x539' })
    ws.send('{"jsonrpc":"2.0","id":10,"method":"eth_chainId","params":[]}')
    expect((await next()).result).toBe('0x539')
    ws.close()
  })

  it('closes a connection that sends a 5 MB frame and keeps serving others', async () => {
    const { ws, opened, closed } = openWs()
    await opened
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_sha3', params: [`0x${'ab'.repeat(2_500_000)}`] }))
    expect(await closed()).toBe(1009)
    const other = openWs()
    await other.opened
    other.ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}')
    expect((await other.next()).result).toBe('0x539')
    other.ws.close()
  }, 30_000)

  it('survives 200 connections opened and closed quickly without growing', async () => {
    const pid = node.proc.pid
    const before = rssKb(pid)
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const { ws, opened } = openWs()
          await opened.catch(() => undefined)
          ws.close()
        }),
      )
    }
    const { ws, opened, next } = openWs()
    await opened
    ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}')
    expect((await next()).result).toBe(headBefore.number)
    ws.close()
    expect(rssKb(pid) - before).toBeLessThan(64 * 1024)
  }, 60_000)
})

describe('after the batteries', () => {
  it('still serves, with the chain unchanged', async () => {
    expect((await call('eth_blockNumber', [])).json.result).toBe(headBefore.number)
    expect(await head()).toEqual(headBefore)
    expect(node.proc.exitCode).toBeNull()
    const internal = node
      .output()
      .split('\n')
      .filter((l) => l.includes('method failed'))
    expect(internal.filter((l) => !l.includes('method=testing_buildBlockV1'))).toEqual([])
  })
})
