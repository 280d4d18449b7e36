import { type FragmentDefinitionNode, Kind, type OperationDefinitionNode, parse } from 'graphql'
import { describe, expect, it } from '../runtime/testing.ts'
import { graphqlSchema } from './graphqlService.ts'
import { limitViolation, operationCost } from './queryLimits.ts'

function cost(query: string) {
  const doc = parse(query)
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
  return operationCost(graphqlSchema(), op, fragments)
}

describe('operationCost', () => {
  it('counts one per field', () => expect(cost('{ block { number hash } }')).toEqual({ complexity: 3, depth: 2 }))
  it('charges Transaction.block as Besu does', () =>
    expect(cost('{ block { transactions { block { transactions { block { number }}}}}}').complexity).toBe(204))
  it('charges introspection of type fields', () =>
    expect(cost('{ __schema { types { fields { type { fields { name }}}}}}').complexity).toBe(204))
  it('expands fragments', () =>
    expect(cost('{ block { ...F } } fragment F on Block { number parent { number } }').complexity).toBe(4))
})

describe('limitViolation', () => {
  it('names the excess in Besu words', () =>
    expect(limitViolation({ complexity: 204, depth: 3 })).toBe('maximum query complexity exceeded 204 > 200'))
  it('bounds the depth', () =>
    expect(limitViolation({ complexity: 30, depth: 30 })).toBe('maximum query depth exceeded 30 > 20'))
  it('lets a normal query through', () => expect(limitViolation({ complexity: 10, depth: 3 })).toBeUndefined())
})
