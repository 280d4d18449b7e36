import { describe, expect, it } from '../runtime/testing.ts'
import { ParamError, p } from './codecs.ts'
import { defineMethod } from './defineMethod.ts'
import { BESU_PARAM_ERRORS } from './errors.ts'

const A20 = `0x${'11'.repeat(20)}`

/** A method on a block's state, read as Besu reads eth_getStorageAt: the block first. */
const storageAt = defineMethod({
  name: 'test_storageAt',
  besu: { kinds: ['address', 'position', 'block'], order: [2, 0, 1] },
  params: [p.address, p.index, p.blockNumberOrTag.optional('latest')],
  handler: (_c: unknown, [, slot]) => {
    if (slot > 255n) throw new ParamError(1, 'slot past the test range')
    return 'ok'
  },
})

/** eth_call's shape: Besu requires the block and reads it first; Basalt defaults it to latest. */
const callAt = defineMethod({
  name: 'test_callAt',
  besu: { kinds: ['call', 'block'], order: [1, 0], required: [1] },
  params: [p.object, p.block.optional('latest')],
  handler: () => 'ok',
})

/** A method Besu counts the arguments of, as eth_sendRawTransaction. */
const counted = defineMethod({
  name: 'test_counted',
  besu: { kinds: ['transaction'], count: 1 },
  params: [p.data],
  handler: () => 'ok',
})

/** A method Besu does not have. */
const own = defineMethod({
  name: 'test_own',
  params: [p.address, p.bool.optional(false)],
  handler: (_c: unknown, [, flag]) => {
    if (flag) throw new ParamError('bool', 'flag refused')
    return 'ok'
  },
})

const refusal = (message: string) => ({ code: -32602, message })

describe("defineMethod with Besu's parameter kinds", () => {
  it("answers Besu's text for the kind of the bad argument, with no data", async () => {
    await expect(storageAt.call({}, ['0x12', '0x0'])).rejects.toEqual(
      expect.objectContaining({ ...refusal('Invalid address params'), data: undefined }),
    )
    await expect(storageAt.call({}, [A20, 'x'])).rejects.toMatchObject(refusal('Invalid position params'))
    await expect(storageAt.call({}, [A20, '0x0', 'lates'])).rejects.toMatchObject(
      refusal('Invalid block, unable to parse RLP'),
    )
  })

  it('reads the arguments in Besu’s order: a bad block wins over a bad address', async () => {
    await expect(storageAt.call({}, ['0x12', 'x', 'lates'])).rejects.toMatchObject(
      refusal('Invalid block, unable to parse RLP'),
    )
  })

  it('answers a missing or null required argument with its kind’s text', async () => {
    await expect(storageAt.call({}, [A20])).rejects.toMatchObject(refusal('Invalid position params'))
    await expect(storageAt.call({}, [null, '0x0'])).rejects.toMatchObject(refusal('Invalid address params'))
    await expect(storageAt.call({}, [])).rejects.toMatchObject(refusal('Invalid address params'))
  })

  it('answers a bad argument beside a missing block Besu requires with the block’s text, and defaults it otherwise', async () => {
    await expect(callAt.call({}, ['0x8'])).rejects.toMatchObject(refusal('Invalid block, unable to parse RLP'))
    await expect(callAt.call({}, ['0x8', 'latest'])).rejects.toMatchObject(refusal('Invalid call params'))
    expect(await callAt.call({}, [{}])).toBe('ok')
  })

  it('answers a negative block number with Besu’s block number text', async () => {
    await expect(callAt.call({}, [{}, '-0x10'])).rejects.toMatchObject(refusal('Invalid block number params'))
    await expect(callAt.call({}, [{}, '0xzz'])).rejects.toMatchObject(refusal('Invalid block, unable to parse RLP'))
  })

  it('ignores arguments past the last one, as Besu does', async () => {
    expect(await storageAt.call({}, [A20, '0x0', 'latest', 'extra', null])).toBe('ok')
  })

  it('maps a refusal the handler raises to the kind of the argument it names', async () => {
    await expect(storageAt.call({}, [A20, '0x100'])).rejects.toMatchObject(refusal('Invalid position params'))
  })

  it('answers "Invalid number of params" where Besu counts the arguments', async () => {
    await expect(counted.call({}, [])).rejects.toMatchObject(refusal('Invalid number of params'))
    await expect(counted.call({}, ['0x', '0x'])).rejects.toMatchObject(refusal('Invalid number of params'))
    await expect(counted.call({}, ['0x1'])).rejects.toMatchObject(
      refusal('Invalid transaction params (missing or incorrect)'),
    )
    expect(await counted.call({}, ['0x'])).toBe('ok')
  })

  it('refuses kinds that do not cover every parameter at definition', () => {
    expect(() =>
      defineMethod({ name: 'test_short', besu: { kinds: ['address'] }, params: [p.address, p.bool], handler: () => 1 }),
    ).toThrow('test_short')
    expect(() =>
      defineMethod({
        name: 'test_order',
        besu: { kinds: ['address', 'block'], order: [0, 0] },
        params: [p.address, p.bool],
        handler: () => 1,
      }),
    ).toThrow('test_order')
  })

  it('holds only -32602 texts of Besu’s invalid-params family', () => {
    for (const text of Object.values(BESU_PARAM_ERRORS)) expect(text).toStartWith('Invalid ')
  })
})

describe('defineMethod without Besu kinds', () => {
  it('names the argument and says what was wrong', async () => {
    await expect(own.call({}, ['0x12'])).rejects.toMatchObject({ code: -32602 })
    await expect(own.call({}, ['0x12'])).rejects.toThrow(
      'invalid argument 0 (address): expected an address of 20 bytes',
    )
    await expect(own.call({}, [A20, true])).rejects.toThrow('invalid argument 1 (bool): flag refused')
  })

  it('refuses a wrong number of arguments', async () => {
    await expect(own.call({}, [])).rejects.toThrow('Invalid params: expected 1 to 2 argument(s), got 0')
    await expect(own.call({}, [A20, false, 1])).rejects.toThrow('expected 1 to 2 argument(s), got 3')
  })
})
