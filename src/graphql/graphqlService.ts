/**
 * GraphQL (EIP-1767) as Besu serves it: the schema in schema.graphql, resolvers in resolvers/ over
 * the chain, the pool, the gas oracle and the call service. Owns parsing, validation, the
 * complexity/depth limits, execution and the shape of answers and errors; does not own HTTP (see
 * server/graphqlListener.ts). The `graphql` package is used in this folder only.
 */
import {
  buildSchema,
  execute,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  parse,
  validate,
} from 'graphql'
import { withExecutionDeadline } from '../evm/executionDeadline.ts'
import type { RpcServices } from '../rpc/context.ts'
import { besuSyntaxMessage, besuValidationErrors, besuVariableMessage, emptySelectionError } from './besuErrors.ts'
import { type GraphqlContext, GraphqlFetchError } from './context.ts'
import { limitViolation, operationCost } from './queryLimits.ts'
import { mutationRoot, queryRoot } from './resolvers/rootResolvers.ts'
import { installScalars } from './scalars.ts'
import schemaText from './schema.graphql' with { type: 'text' }

export interface GraphqlRequest {
  query?: unknown
  variables?: unknown
  operationName?: unknown
}

/** An answer: the HTTP status Besu uses (400 whenever there are errors) and the JSON body. */
export interface GraphqlResponse {
  status: number
  body: { errors?: FormattedError[]; data?: unknown }
}

interface FormattedError {
  message: string
  locations?: { line: number; column: number }[]
  path?: (string | number)[]
  extensions: { classification: string; errorCode?: number; errorMessage?: string }
}

type Classification = 'InvalidSyntax' | 'ValidationError' | 'ExecutionAborted' | 'DataFetchingException'

let cachedSchema: GraphQLSchema | undefined

/** The executable schema, built once. */
export function graphqlSchema(): GraphQLSchema {
  if (!cachedSchema) {
    cachedSchema = buildSchema(schemaText)
    installScalars(cachedSchema)
  }
  return cachedSchema
}

export class GraphqlService {
  private readonly schema = graphqlSchema()
  private readonly ctx: GraphqlContext
  private readonly beforeRequest?: () => Promise<void> | undefined

  /** `beforeRequest` runs first on every request (the dev sealer seals a held-back burst of sends). */
  constructor(services: RpcServices, beforeRequest?: () => Promise<void> | undefined) {
    this.beforeRequest = beforeRequest
    this.ctx = {
      chain: services.chain,
      pool: services.pool,
      settings: services.settings,
      rpc: { ...services, apis: [] },
    }
  }

  /** Runs one request; `isReadOnly` (GET) refuses mutations, as GraphQL over HTTP requires. */
  async execute(req: GraphqlRequest, isReadOnly = false): Promise<GraphqlResponse> {
    await this.beforeRequest?.()
    if (typeof req.query !== 'string' || req.query.trim() === '')
      return failure('Query must be a non-empty string', 'InvalidSyntax')
    const variables = parseVariables(req.variables)
    if (variables === undefined) return failure('Variables must be a JSON object', 'ValidationError')
    const operationName =
      typeof req.operationName === 'string' && req.operationName !== '' ? req.operationName : undefined
    let document: ReturnType<typeof parse>
    try {
      document = parse(req.query)
    } catch (e) {
      const error = e as GraphQLError
      return errorsResponse(
        [{ message: besuSyntaxMessage(error, req.query), locations: error.locations }],
        'InvalidSyntax',
      )
    }
    const empty = emptySelectionError(document)
    if (empty) return errorsResponse([{ message: empty.message, locations: [empty] }], 'InvalidSyntax')
    const validationErrors = validate(this.schema, document)
    if (validationErrors.length > 0) {
      const errors = besuValidationErrors(validationErrors, document).map(({ message, node }) => ({
        message,
        locations: node?.loc ? [{ line: node.loc.startToken.line, column: node.loc.startToken.column }] : undefined,
      }))
      return errorsResponse(errors, 'ValidationError')
    }
    const operation = getOperationAST(document, operationName)
    if (!operation) {
      const message = operationName
        ? `Unknown operation named "${operationName}".`
        : 'Must provide operation name if query contains multiple operations.'
      return failure(message, 'ValidationError')
    }
    if (isReadOnly && operation.operation !== 'query')
      return { ...failure('Mutations must be sent with POST', 'ValidationError'), status: 405 }
    const fragments = new Map<string, FragmentDefinitionNode>()
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
    const violation = limitViolation(operationCost(this.schema, operation, fragments))
    if (violation) return failure(violation, 'ExecutionAborted')
    const result = await withExecutionDeadline(this.ctx.settings.rpcEvmTimeoutMs, async () =>
      execute({
        schema: this.schema,
        document,
        operationName,
        variableValues: variables,
        rootValue: operation.operation === 'mutation' ? mutationRoot : queryRoot,
        contextValue: this.ctx,
      }),
    )
    const body: GraphqlResponse['body'] = {}
    if (result.errors?.length)
      body.errors = result.errors.map((e) =>
        e.path
          ? formatError(e, 'DataFetchingException')
          : { ...formatError(e, 'ValidationError'), message: besuVariableMessage(e, operation, variables) },
      )
    if ('data' in result) body.data = result.data
    return { status: body.errors ? 400 : 200, body }
  }
}

function parseVariables(v: unknown): Record<string, unknown> | undefined {
  if (v === undefined || v === null || v === '') return {}
  if (typeof v === 'string') {
    try {
      return parseVariables(JSON.parse(v))
    } catch {
      return undefined
    }
  }
  return typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}

function failure(message: string, classification: Classification): GraphqlResponse {
  return { status: 400, body: { errors: [{ message, extensions: { classification } }] } }
}

function errorsResponse(
  errors: readonly Pick<GraphQLError, 'message' | 'locations'>[],
  classification: Classification,
): GraphqlResponse {
  return {
    status: 400,
    body: {
      errors: errors.map((e) => ({
        message: e.message,
        locations: e.locations?.map(({ line, column }) => ({ line, column })),
        extensions: { classification },
      })),
    },
  }
}

/**
 * A resolver's failure reads like Besu's: "Exception while fetching data (/block) : …", and one with a
 * JSON-RPC code (Besu's GraphQLException) carries it as `errorCode` and `errorMessage`.
 */
function formatError(e: GraphQLError, classification: Classification): FormattedError {
  const isFetch = e.path !== undefined && !(e.originalError instanceof GraphQLError) && e.originalError !== undefined
  const coded = e.originalError instanceof GraphqlFetchError ? e.originalError.code : undefined
  return {
    message: isFetch ? `Exception while fetching data (/${e.path!.join('/')}) : ${e.message}` : e.message,
    locations: e.locations?.map(({ line, column }) => ({ line, column })),
    path: e.path ? [...e.path] : undefined,
    extensions:
      coded === undefined ? { classification } : { errorCode: coded, errorMessage: e.message, classification },
  }
}
