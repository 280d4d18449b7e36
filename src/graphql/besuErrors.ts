/**
 * The texts of request errors as Besu writes them. Besu runs graphql-java, whose parse and validation
 * messages differ from the `graphql` package's: "Validation error (FieldUndefined@[block/foo]) : Field
 * 'foo' in type 'Block' is undefined", located at the field, against `Cannot query field "foo" on type
 * "Block".`. This file rewrites the package's errors in graphql-java's words (its i18n
 * Validation.properties and Parsing.properties), with graphql-java's error type, query path (the field
 * names from the root to the field at fault) and location (the argument, not its value, for a bad
 * argument). An error it does not know keeps the package's text.
 */
import {
  type ArgumentNode,
  type ASTNode,
  type DocumentNode,
  type FieldNode,
  GraphQLError,
  Kind,
  type ObjectFieldNode,
  type OperationDefinitionNode,
  type TypeNode,
  type ValueNode,
  visit,
} from 'graphql'

/** A scalar's refusal of a literal: the scalar's name and Besu's coercing message. */
export class ScalarLiteralError extends GraphQLError {
  readonly scalar: string
  readonly detail: string
  constructor(scalar: string, detail: string, node: ValueNode) {
    super(detail, { nodes: node })
    this.scalar = scalar
    this.detail = detail
  }
}

/** Where a node sits: the field names from the root to its field, and for values the argument. */
interface Place {
  path: string[]
  field?: FieldNode
  /** The argument, its name with graphql-java's path into the value (`filter.topics[0][0]`). */
  argument?: { name: string; node: ArgumentNode }
}

/** Places of the fields, selection sets, arguments and values of a document. */
function placesOf(document: DocumentNode): Map<ASTNode, Place> {
  const places = new Map<ASTNode, Place>()
  const path: string[] = []
  const fields: FieldNode[] = []
  const argNames: string[] = []
  const listItems = new Set<ASTNode>()
  let argument: ArgumentNode | undefined
  const here = (): Place => ({
    path: [...path],
    field: fields.at(-1),
    argument: argument ? { name: argNames.join('.').replaceAll('.[', '['), node: argument } : undefined,
  })
  visit(document, {
    Field: {
      enter(node) {
        path.push(node.name.value)
        fields.push(node)
        places.set(node, here())
      },
      leave() {
        path.pop()
        fields.pop()
      },
    },
    SelectionSet: { enter: (node) => void places.set(node, here()) },
    FragmentDefinition: { enter: () => void path.splice(0) },
    Argument: {
      enter(node) {
        argument = node
        argNames.push(node.name.value)
        places.set(node, here())
      },
      leave() {
        argument = undefined
        argNames.pop()
      },
    },
    ObjectField: {
      enter(node: ObjectFieldNode) {
        places.set(node, here())
        argNames.push(node.name.value)
      },
      leave: () => void argNames.pop(),
    },
    enter(node, key) {
      if (argument && typeof key === 'number' && VALUE_KINDS.has(node.kind)) {
        argNames.push(`[${key}]`)
        listItems.add(node)
      }
      if (!places.has(node)) places.set(node, here())
    },
    leave(node) {
      if (listItems.has(node)) argNames.pop()
    },
  })
  return places
}

const VALUE_KINDS = new Set<string>([
  Kind.STRING,
  Kind.INT,
  Kind.FLOAT,
  Kind.BOOLEAN,
  Kind.NULL,
  Kind.ENUM,
  Kind.LIST,
  Kind.OBJECT,
  Kind.VARIABLE,
])

/** A value as graphql-java prints its AST node (`StringValue{value='0x12'}`). */
export function javaValue(node: ValueNode): string {
  switch (node.kind) {
    case Kind.STRING:
      return `StringValue{value='${node.value}'}`
    case Kind.INT:
      return `IntValue{value=${node.value}}`
    case Kind.FLOAT:
      return `FloatValue{value=${node.value}}`
    case Kind.BOOLEAN:
      return `BooleanValue{value=${node.value}}`
    case Kind.NULL:
      return 'NullValue{}'
    case Kind.ENUM:
      return `EnumValue{name='${node.value}'}`
    case Kind.VARIABLE:
      return `VariableReference{name='${node.name.value}'}`
    case Kind.LIST:
      return `ArrayValue{values=[${node.values.map(javaValue).join(', ')}]}`
    case Kind.OBJECT:
      return `ObjectValue{objectFields=[${node.fields.map((f) => `ObjectField{name='${f.name.value}', value=${javaValue(f.value)}}`).join(', ')}]}`
  }
}

interface Rewritten {
  message: string
  node?: ASTNode
}

type Rule = (
  e: GraphQLError,
  m: RegExpMatchArray,
  place: Place | undefined,
) => [type: string, text: string, at?: ASTNode]

/** graphql-js's validation messages and graphql-java's for the same fault. */
const RULES: [RegExp, Rule][] = [
  [
    /^Expected value of non-null type "[^"]+" not to be null\./,
    (e, _m, place) => [
      'WrongType',
      `argument '${place?.argument?.name ?? ''}' with value '${javaValue(e.nodes?.[0] as ValueNode)}' must not be null`,
      place?.argument?.node,
    ],
  ],
  [
    /^Expected value of type "(\w+)" not to include unknown field "(\w+)"/,
    (_e, m, place) => [
      'WrongType',
      `argument '${place?.argument?.name ?? ''}' with value '${place?.argument ? javaValue(place.argument.node.value) : ''}' contains a field not in '${m[1]}': '${m[2]}'`,
      place?.argument?.node,
    ],
  ],
  [
    /^Cannot query field "(\w+)" on type "(\w+)"\./,
    (_e, m) => ['FieldUndefined', `Field '${m[1]}' in type '${m[2]}' is undefined`],
  ],
  [
    /^Argument "\w+\.\w+\((\w+):\)" of type "[^"]+" is required, but it was not provided\./,
    (_e, m) => ['MissingFieldArgument', `Missing field argument '${m[1]}'`],
  ],
  [/^Unknown argument "(\w+)" on field/, (_e, m) => ['UnknownArgument', `Unknown field argument '${m[1]}'`]],
  [
    /^Field "(\w+)" of type "([^"]+)" must have a selection of subfields/,
    (_e, m) => ['SubselectionRequired', `Subselection required for type '${m[2]}' of field '${m[1]}'`],
  ],
  [
    /^Field "(\w+)" must not have a selection since type "([^"]+)" has no subfields\./,
    (_e, m, place) => [
      'SubselectionNotAllowed',
      `Subselection not allowed on leaf type '${m[2]}' of field '${m[1]}'`,
      place?.field,
    ],
  ],
  [/^Variable "\$(\w+)" is never used/, (_e, m) => ['UnusedVariable', `Unused variable '${m[1]}'`]],
  [/^Variable "\$(\w+)" is not defined/, (_e, m) => ['UndefinedVariable', `Undefined variable '${m[1]}'`]],
  [
    /^Variable "\$(\w+)" of type "([^"]+)" used in position expecting type "([^"]+)"\./,
    (_e, m) => [
      'VariableTypeMismatch',
      `Variable '${m[1]}' of type '${m[2]}' used in position expecting type '${m[3]}'`,
    ],
  ],
  [/^Unknown type "(\w+)"\./, (_e, m) => ['UnknownType', `Unknown type '${m[1]}'`]],
  [
    /^There can be only one argument named "(\w+)"\./,
    (_e, m) => ['DuplicateArgumentNames', `There can be only one argument named '${m[1]}'`],
  ],
]

/** One validation error of the `graphql` package in graphql-java's words, at graphql-java's node. */
export function besuValidationError(e: GraphQLError, document: DocumentNode, places = placesOf(document)): Rewritten {
  const node = e.nodes?.[0]
  const place = node ? places.get(node) : undefined
  const typeAndPath = (type: string) => (place?.path.length ? `${type}@[${place.path.join('/')}]` : type)
  if (e instanceof ScalarLiteralError && node) {
    const arg = place?.argument
    const text = `argument '${arg?.name ?? ''}' with value '${javaValue(node as ValueNode)}' is not a valid '${e.scalar}' - ${e.detail}`
    return { message: `Validation error (${typeAndPath('WrongType')}) : ${text}`, node: arg?.node ?? node }
  }
  for (const [pattern, rule] of RULES) {
    const m = e.message.match(pattern)
    if (!m) continue
    const [type, text, at] = rule(e, m, place)
    return { message: `Validation error (${typeAndPath(type)}) : ${text}`, node: at ?? node }
  }
  return { message: e.message, node }
}

/** Every validation error of a document in graphql-java's words. */
export function besuValidationErrors(errors: readonly GraphQLError[], document: DocumentNode): Rewritten[] {
  const places = placesOf(document)
  return errors.map((e) => besuValidationError(e, document, places))
}

/**
 * A syntax error in graphql-java's words: "Invalid syntax with offending token '}' at line 1 column
 * 2", or, for tokens after a complete document, its "extra tokens" message.
 */
export function besuSyntaxMessage(e: GraphQLError, query: string): string {
  const at = e.locations?.[0]
  if (!at) return e.message
  const found = e.message.match(/(?:found|Unexpected) (.+?)\.?$/)?.[1] ?? ''
  const token = found.replace(/^(?:Name|String|Int|Float|BlockString) /, '').replace(/^"(.*)"$/, '$1')
  const where = `at line ${at.line} column ${at.column}`
  const offset = e.positions?.[0] ?? 0
  const isExtra = /Unexpected/.test(e.message) && query.slice(0, offset).replace(/[\s,]|#.*$/gm, '') !== ''
  if (isExtra)
    return `Invalid syntax encountered. There are extra tokens in the text that have not been consumed. Offending token '${token}' ${where}`
  return token ? `Invalid syntax with offending token '${token}' ${where}` : `Invalid syntax ${where}`
}

/**
 * graphql-java's parser refuses an empty selection set (`{}`), as the GraphQL grammar does; the
 * `graphql` package reads it. The syntax error graphql-java gives, at the closing brace, or undefined.
 */
export function emptySelectionError(
  document: DocumentNode,
): { message: string; line: number; column: number } | undefined {
  let found: { line: number; column: number } | undefined
  visit(document, {
    SelectionSet(node) {
      if (!found && node.selections.length === 0 && node.loc) found = node.loc.endToken
    },
  })
  if (!found) return undefined
  const { line, column } = found
  return { message: `Invalid syntax with offending token '}' at line ${line} column ${column}`, line, column }
}

const SCALARS = new Set(['Address', 'Bytes', 'Bytes32', 'BigInt', 'Long'])

function namedType(t: TypeNode): TypeNode {
  return t.kind === Kind.NON_NULL_TYPE ? namedType(t.type) : t
}

/**
 * A variable value a scalar refuses, as graphql-java answers it: "Variable 'a' has an invalid value:
 * Unable to parse variable value 0x1234 as an Address" (Besu's parseValue message); a hex scalar's
 * missing 0x is Besu's own message, which graphql-java passes on as it is. Other errors unchanged.
 */
export function besuVariableMessage(
  e: GraphQLError,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): string {
  const name = e.message.match(/^Variable "\$(\w+)" has invalid value: /)?.[1]
  const definition = operation.variableDefinitions?.find((d) => d.variable.name.value === name)
  const type = definition && namedType(definition.type)
  if (!name || type?.kind !== Kind.NAMED_TYPE || !SCALARS.has(type.name.value) || !(name in variables)) return e.message
  const scalar = type.name.value
  const value = variables[name]
  if (HEX_NAMES.has(scalar) && typeof value === 'string' && !/^0x/i.test(value))
    return `${scalar} value '${value}' is not prefixed with 0x`
  return `Variable '${name}' has an invalid value: Unable to parse variable value ${javaText(value)} as an ${scalar}`
}

/**
 * A JSON value as Java prints the object Jackson reads it into (`LinkedHashMap`: `{a=1, b=[1, 2]}`,
 * `ArrayList`: `[1, 2]`), which is how graphql-java's message quotes a variable.
 */
function javaText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(javaText).join(', ')}]`
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}=${javaText(v)}`)
      .join(', ')}}`
  return String(value)
}

const HEX_NAMES = new Set(['Bytes', 'Bytes32'])
