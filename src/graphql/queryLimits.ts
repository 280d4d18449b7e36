/**
 * Limits on one GraphQL operation, checked after validation and before execution, so that one
 * request cannot make the node walk the chain without end. Complexity follows Besu: every field costs
 * 1 plus its children, `Transaction.block` and `__Type.fields` cost 100 plus their children (they fan out), and the
 * ceiling is 200. Depth counts nested selections.
 */
import {
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql'

const MAX_COMPLEXITY = 200
const MAX_DEPTH = 20
const FAN_OUT_COST = 100
const FAN_OUT_FIELDS = new Set(['Transaction.block', '__Type.fields'])

export interface OperationCost {
  complexity: number
  depth: number
}

/** Complexity and depth of `operation`, fragments expanded (each at most once per path). */
export function operationCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Map<string, FragmentDefinitionNode>,
): OperationCost {
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType()
  const walk = (set: SelectionSetNode, parent: GraphQLNamedType | undefined, seen: Set<string>): OperationCost => {
    let complexity = 0
    let depth = 0
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const child = sel.selectionSet
          ? walk(sel.selectionSet, fieldType(schema, parent, sel.name.value), seen)
          : { complexity: 0, depth: 0 }
        const isFanOut = parent !== undefined && FAN_OUT_FIELDS.has(`${parent.name}.${sel.name.value}`)
        complexity += child.complexity + (isFanOut ? FAN_OUT_COST : 1)
        depth = Math.max(depth, child.depth + 1)
        continue
      }
      let inner: SelectionSetNode | undefined
      let typeName: string | undefined
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        inner = sel.selectionSet
        typeName = sel.typeCondition?.name.value
      } else {
        const name = sel.name.value
        const fragment = fragments.get(name)
        if (!fragment || seen.has(name)) continue
        inner = fragment.selectionSet
        typeName = fragment.typeCondition.name.value
        seen = new Set(seen).add(name)
      }
      const c = walk(inner, typeName ? schema.getType(typeName) : parent, seen)
      complexity += c.complexity
      depth = Math.max(depth, c.depth)
    }
    return { complexity, depth }
  }
  return walk(operation.selectionSet, root ?? undefined, new Set())
}

function fieldType(
  schema: GraphQLSchema,
  parent: GraphQLNamedType | undefined,
  name: string,
): GraphQLNamedType | undefined {
  if (name === '__schema') return schema.getType('__Schema')
  if (name === '__type') return schema.getType('__Type')
  if (!parent || !(isObjectType(parent) || isInterfaceType(parent))) return undefined
  const field = parent.getFields()[name]
  return field ? getNamedType(field.type) : undefined
}

/** The message for an operation over the limits (Besu's wording), or undefined. */
export function limitViolation(cost: OperationCost): string | undefined {
  if (cost.complexity > MAX_COMPLEXITY)
    return `maximum query complexity exceeded ${cost.complexity} > ${MAX_COMPLEXITY}`
  if (cost.depth > MAX_DEPTH) return `maximum query depth exceeded ${cost.depth} > ${MAX_DEPTH}`
  return undefined
}
