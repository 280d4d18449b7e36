/**
 * Pins schema.graphql to the schema Besu serves (EIP-1767 with Besu's additions), field by field:
 * every type, field, argument and nullability. A change here is a change of the public interface.
 */

import { readFileSync } from 'node:fs'
import { type GraphQLField, type GraphQLInputField, isInputObjectType, isObjectType, isScalarType } from 'graphql'
import { describe, expect, it } from '../runtime/testing.ts'
import { graphqlSchema } from './graphqlService.ts'

/** Besu's fields, `Type.field(arg: T): T` a line (test/fixtures/besuGraphqlFields.txt). */
function besuTypes(): Record<string, string[]> {
  const text = readFileSync(new URL('../../test/fixtures/besuGraphqlFields.txt', import.meta.url), 'utf8')
  const out: Record<string, string[]> = {}
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue
    const dot = line.indexOf('.')
    const type = line.slice(0, dot)
    out[type] ??= []
    out[type].push(line.slice(dot + 1))
  }
  return out
}

/** Fields Basalt serves beyond Besu's schema. */
const BASALT_ADDITIONS: Record<string, string[]> = {
  // An older EIP-1767 root field clients still send (`{ account(address: …) { balance } }`).
  Query: ['account(address: Address!, blockNumber: Long): Account!'],
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
      if (isObjectType(t) || isInputObjectType(t)) ours[t.name] = Object.values(t.getFields()).map(signature).sort()
    }
    const expected = besuTypes()
    for (const [type, fields] of Object.entries(BASALT_ADDITIONS)) expected[type] = [...expected[type], ...fields]
    for (const type of Object.keys(expected)) expected[type].sort()
    expect(ours).toEqual(expected)
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
