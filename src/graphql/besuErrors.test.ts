import type { RpcServices } from '../rpc/context.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { GraphqlService } from './graphqlService.ts'

// Parsing and validation run before any resolver: a service without a chain answers them.
const service = new GraphqlService({ settings: { rpcEvmTimeoutMs: 1000 } } as unknown as RpcServices)
const only = async (query: string) => {
  const res = await service.execute({ query })
  expect(res.status).toBe(400)
  expect(res.body.errors).toHaveLength(1)
  const [e] = res.body.errors ?? []
  return { message: e.message, at: e.locations?.[0], classification: e.extensions.classification }
}

describe('validation errors in graphql-java words', () => {
  it('names an unknown field with its type and query path, at the field', async () => {
    expect(await only('{ block { foo } }')).toEqual({
      message: "Validation error (FieldUndefined@[block/foo]) : Field 'foo' in type 'Block' is undefined",
      at: { line: 1, column: 11 },
      classification: 'ValidationError',
    })
  })

  it('names a missing required argument, at its field', async () => {
    expect(await only('{ pending { account { balance } } }')).toEqual({
      message: "Validation error (MissingFieldArgument@[pending/account]) : Missing field argument 'address'",
      at: { line: 1, column: 13 },
      classification: 'ValidationError',
    })
  })

  it('names a bad value inside an input object by its dotted argument path, at the argument', async () => {
    const q =
      '{block(number: 8) {number call (data : {to: "0x6295ee1b4f6dd65047762f924ecd367c17eabf8f", data: "12"}){status}}}'
    expect((await only(q)).message).toBe(
      "Validation error (WrongType@[block/call]) : argument 'data.data' with value 'StringValue{value='12'}' is not a valid 'Bytes' - Bytes value '12' is not prefixed with 0x",
    )
    expect((await only(q)).at).toEqual({ line: 1, column: 33 })
  })

  it('names a value inside lists by its indexes, and a null where a value must be', async () => {
    expect((await only('{ logs(filter: { topics: [["0x01", "zz"]] }) { index } }')).message).toBe(
      "Validation error (WrongType@[logs]) : argument 'filter.topics[0][1]' with value 'StringValue{value='zz'}' is not a valid 'Bytes32' - Bytes32 value 'zz' is not prefixed with 0x",
    )
    expect(await only('{ block(number: 23) { logs(filter: { topics: [[null]] }) { index } } }')).toMatchObject({
      message:
        "Validation error (WrongType@[block/logs]) : argument 'filter.topics[0][0]' with value 'NullValue{}' must not be null",
      at: { line: 1, column: 28 },
    })
  })

  it('names a field the input type does not have', async () => {
    expect((await only('{ block { call(data: { foo: 1 }) { status } } }')).message).toBe(
      "Validation error (WrongType@[block/call]) : argument 'data' with value 'ObjectValue{objectFields=[ObjectField{name='foo', value=IntValue{value=1}}]}' contains a field not in 'CallData': 'foo'",
    )
  })

  it("prints a refused non-string literal as graphql-java's AST node", async () => {
    expect((await only('{ block { account(address: 5) { balance } } }')).message).toBe(
      "Validation error (WrongType@[block/account]) : argument 'address' with value 'IntValue{value=5}' is not a valid 'Address' - Value is not any Address : 'IntValue{value=5}'",
    )
    expect((await only('{ block(number: "zz") { number } }')).message).toBe(
      "Validation error (WrongType@[block]) : argument 'number' with value 'StringValue{value='zz'}' is not a valid 'Long' - Value is not any Long : 'StringValue{value='zz'}'",
    )
  })

  it('words unknown arguments, selections on leaves and missing selections', async () => {
    expect((await only('{ block(foo: 1) { number } }')).message).toBe(
      "Validation error (UnknownArgument@[block]) : Unknown field argument 'foo'",
    )
    expect((await only('{ block }')).message).toBe(
      "Validation error (SubselectionRequired@[block]) : Subselection required for type 'Block' of field 'block'",
    )
    expect(await only('{ block { number { x } } }')).toMatchObject({
      message:
        "Validation error (SubselectionNotAllowed@[block/number]) : Subselection not allowed on leaf type 'Long!' of field 'number'",
      at: { line: 1, column: 11 },
    })
  })

  it('leaves the query path out for an error outside any field', async () => {
    expect(await only('query q($x: Long) { block { number } }')).toMatchObject({
      message: "Validation error (UnusedVariable) : Unused variable 'x'",
      at: { line: 1, column: 9 },
    })
  })
})

describe('syntax errors in graphql-java words', () => {
  it('names the offending token and where it is', async () => {
    expect(await only('{')).toEqual({
      message: "Invalid syntax with offending token '<EOF>' at line 1 column 2",
      at: { line: 1, column: 2 },
      classification: 'InvalidSyntax',
    })
    expect((await only('test')).message).toBe("Invalid syntax with offending token 'test' at line 1 column 1")
  })

  it('refuses an empty selection set, which the grammar forbids', async () => {
    expect((await only('{}')).message).toBe("Invalid syntax with offending token '}' at line 1 column 2")
  })

  it('reports tokens after a complete document as extra tokens', async () => {
    expect((await only('{ block { number } } }')).message).toBe(
      "Invalid syntax encountered. There are extra tokens in the text that have not been consumed. Offending token '}' at line 1 column 22",
    )
  })
})

describe('variable values in graphql-java words', () => {
  const vars = async (query: string, variables: Record<string, unknown>) =>
    (await service.execute({ query, variables })).body.errors?.[0]

  it("names the variable and Besu's parse failure, at the variable's definition", async () => {
    expect(
      await vars('query($a: Address!) { block { account(address: $a) { balance } } }', { a: '0x1234' }),
    ).toMatchObject({
      message: "Variable 'a' has an invalid value: Unable to parse variable value 0x1234 as an Address",
      locations: [{ line: 1, column: 7 }],
    })
  })

  it('quotes an object or a list as Java prints the value Jackson read', async () => {
    const message = async (a: unknown) =>
      (await vars('query($a: Long) { block(number: $a) { number } }', { a }))?.message
    expect(await message({ x: 1, y: [1, 'b', { z: null }] })).toBe(
      "Variable 'a' has an invalid value: Unable to parse variable value {x=1, y=[1, b, {z=null}]} as an Long",
    )
    expect(await message([])).toBe("Variable 'a' has an invalid value: Unable to parse variable value [] as an Long")
  })

  it("passes a hex scalar's missing 0x on as Besu's own message", async () => {
    expect((await vars('query($h: Bytes32) { block(hash: $h) { number } }', { h: 'abcd' }))?.message).toBe(
      "Bytes32 value 'abcd' is not prefixed with 0x",
    )
  })
})
