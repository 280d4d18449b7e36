/**
 * Pins schema.graphql to the schema Besu serves (EIP-1767 with Besu's additions), field by field:
 * every type, field, argument and nullability. A change here is a change of the public interface.
 */

import { type GraphQLField, type GraphQLInputField, isInputObjectType, isObjectType, isScalarType } from 'graphql'
import { describe, expect, it } from '../runtime/testing.ts'
import { graphqlSchema } from './graphqlService.ts'

/** `Type: field(arg: T): T, …` for every object and input type, as Besu declares them. */
const BESU_TYPES: Record<string, string[]> = {
  AccessTuple: ['address: Address!', 'storageKeys: [Bytes32!]!'],
  Account: [
    'address: Address!',
    'balance: BigInt!',
    'transactionCount: Long!',
    'code: Bytes!',
    'storage(slot: Bytes32!): Bytes32!',
  ],
  Block: [
    'number: Long!',
    'hash: Bytes32!',
    'parent: Block',
    'nonce: Bytes!',
    'transactionsRoot: Bytes32!',
    'transactionCount: Long',
    'stateRoot: Bytes32!',
    'receiptsRoot: Bytes32!',
    'miner(block: Long): Account!',
    'extraData: Bytes!',
    'gasLimit: Long!',
    'gasUsed: Long!',
    'baseFeePerGas: BigInt',
    'nextBaseFeePerGas: BigInt',
    'timestamp: Long!',
    'logsBloom: Bytes!',
    'mixHash: Bytes32!',
    'difficulty: BigInt!',
    'totalDifficulty: BigInt!',
    'ommerCount: Long',
    'ommers: [Block]',
    'ommerAt(index: Long!): Block',
    'ommerHash: Bytes32!',
    'transactions: [Transaction!]',
    'transactionAt(index: Long!): Transaction',
    'logs(filter: BlockFilterCriteria!): [Log!]!',
    'account(address: Address!): Account!',
    'call(data: CallData!): CallResult',
    'estimateGas(data: CallData!): Long!',
    'rawHeader: Bytes!',
    'raw: Bytes!',
    'withdrawalsRoot: Bytes32',
    'withdrawals: [Withdrawal!]',
    'blobGasUsed: Long',
    'excessBlobGas: Long',
  ],
  BlockFilterCriteria: ['addresses: [Address!]', 'topics: [[Bytes32!]!]'],
  CallData: [
    'from: Address',
    'to: Address',
    'gas: Long',
    'gasPrice: BigInt',
    'maxFeePerGas: BigInt',
    'maxPriorityFeePerGas: BigInt',
    'value: BigInt',
    'data: Bytes',
  ],
  CallResult: ['data: Bytes!', 'gasUsed: Long!', 'status: Long!'],
  FilterCriteria: ['fromBlock: Long', 'toBlock: Long', 'addresses: [Address!]', 'topics: [[Bytes32!]!]'],
  Log: [
    'index: Long!',
    'account(block: Long): Account!',
    'topics: [Bytes32!]!',
    'data: Bytes!',
    'transaction: Transaction!',
  ],
  Mutation: ['sendRawTransaction(data: Bytes!): Bytes32!'],
  Pending: [
    'transactionCount: Long!',
    'transactions: [Transaction!]',
    'account(address: Address!): Account!',
    'call(data: CallData!): CallResult',
    'estimateGas(data: CallData!): Long!',
  ],
  Query: [
    'account(address: Address!, blockNumber: Long): Account!',
    'block(number: Long, hash: Bytes32): Block',
    'blocks(from: Long, to: Long): [Block!]!',
    'pending: Pending!',
    'transaction(hash: Bytes32!): Transaction',
    'logs(filter: FilterCriteria!): [Log!]!',
    'gasPrice: BigInt!',
    'maxPriorityFeePerGas: BigInt!',
    'syncing: SyncState',
    'chainID: BigInt!',
  ],
  SyncState: ['startingBlock: Long!', 'currentBlock: Long!', 'highestBlock: Long!'],
  Transaction: [
    'hash: Bytes32!',
    'nonce: Long!',
    'index: Long',
    'from(block: Long): Account!',
    'to(block: Long): Account',
    'value: BigInt!',
    'gasPrice: BigInt!',
    'maxFeePerGas: BigInt',
    'maxPriorityFeePerGas: BigInt',
    'maxFeePerBlobGas: BigInt',
    'effectiveTip: BigInt',
    'gas: Long!',
    'inputData: Bytes!',
    'block: Block',
    'status: Long',
    'gasUsed: Long',
    'cumulativeGasUsed: Long',
    'effectiveGasPrice: BigInt',
    'blobGasUsed: Long',
    'blobGasPrice: BigInt',
    'createdContract(block: Long): Account',
    'logs: [Log!]',
    'r: BigInt!',
    's: BigInt!',
    'v: BigInt',
    'yParity: BigInt',
    'type: Long',
    'accessList: [AccessTuple!]',
    'raw: Bytes!',
    'rawReceipt: Bytes!',
    'blobVersionedHashes: [Bytes32!]',
    'revertReason: Bytes',
  ],
  Withdrawal: ['index: Long!', 'validator: Long!', 'address: Address!', 'amount: Long!'],
}

const BUILT_IN_SCALARS = new Set(['String', 'Boolean', 'Int', 'Float', 'ID'])

function signature(f: GraphQLField<unknown, unknown> | GraphQLInputField): string {
  const args = 'args' in f && f.args.length > 0 ? `(${f.args.map((a) => `${a.name}: ${a.type}`).join(', ')})` : ''
  return `${f.name}${args}: ${f.type}`
}

describe('schema.graphql', () => {
  const schema = graphqlSchema()
  const named = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'))

  it("declares Besu's object and input types with the same fields, arguments and nullability", () => {
    const ours: Record<string, string[]> = {}
    for (const t of named) {
      if (isObjectType(t) || isInputObjectType(t)) ours[t.name] = Object.values(t.getFields()).map(signature)
    }
    expect(ours).toEqual(BESU_TYPES)
  })

  it("declares EIP-1767's five scalars and nothing else of its own", () => {
    const scalars = named.filter((t) => isScalarType(t) && !BUILT_IN_SCALARS.has(t.name)).map((t) => t.name)
    expect(scalars.sort()).toEqual(['Address', 'BigInt', 'Bytes', 'Bytes32', 'Long'])
    expect(named.every((t) => isScalarType(t) || isObjectType(t) || isInputObjectType(t))).toBe(true)
  })

  it('has a query and a mutation root and no subscriptions (GraphQL is not served over WebSocket)', () => {
    expect(schema.getQueryType()?.name).toBe('Query')
    expect(schema.getMutationType()?.name).toBe('Mutation')
    expect(schema.getSubscriptionType()).toBeFalsy()
  })
})
