import { keccak_256 } from '@noble/hashes/sha3.js'
import { type TracingChain, tracingChain } from '../../test/tracing/tracingChain.ts'
import { devAccounts } from '../chain/devAccounts.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { DevTools } from '../producer/devTools.ts'
import { afterAll, beforeAll, describe, expect, it } from '../runtime/testing.ts'
import { migrate } from '../storage/schema.ts'
import { openSqlite } from '../storage/sqlite.ts'
import { PreimageTable } from './preimages.ts'

let t: TracingChain
beforeAll(async () => {
  t = await tracingChain()
})
afterAll(() => t.close())

const preimageOf = (preimage: Uint8Array) => {
  const found = t.chain.trieDb.preimages?.lookup(keccak_256(preimage))
  return found ? bytesToHex(found) : undefined
}

describe('PreimageTable', () => {
  it('knows the genesis alloc and the accounts and slots a block wrote', async () => {
    const dev = hexToBytes(devAccounts()[7].address)
    expect(preimageOf(dev)).toBe(bytesToHex(dev))
    const recipient = hexToBytes('0x00000000000000000000000000000000000f00d1')
    expect(preimageOf(recipient)).toBeUndefined()
    await t.send({ to: bytesToHex(recipient), value: 1n })
    expect(preimageOf(recipient)).toBe(bytesToHex(recipient))
  })

  it('knows what a dev-tool state edit wrote', async () => {
    const tools = new DevTools(t.chain, t.pool, t.sealer)
    const address = hexToBytes('0x00000000000000000000000000000000000f00d2')
    const slot = hexToBytes(`0x${'07'.padStart(64, '0')}`)
    await tools.setAccounts([[address, { balance: 5n, storage: [[slot, new Uint8Array([9])]] }]])
    expect(preimageOf(address)).toBe(bytesToHex(address))
    expect(preimageOf(slot)).toBe(bytesToHex(slot))
  })
})

describe('PreimageTable.flush', () => {
  it('stores every noted preimage under its hash, for counts around each chunk size, keeping stored rows', async () => {
    for (const count of [1, 8, 9, 64, 65, 130]) {
      const db = await openSqlite(':memory:')
      migrate(db, true)
      // A row already there under the first preimage's hash stays as it is (INSERT OR IGNORE).
      const first = new Uint8Array(20).fill(1)
      db.prepare('INSERT INTO preimages (hash, preimage) VALUES (?, ?)').run(keccak_256(first), new Uint8Array([7]))
      const table = new PreimageTable(db)
      const preimages = Array.from({ length: count }, (_, i) => new Uint8Array(20).fill(i + 1))
      for (const p of preimages) table.note(p)
      table.note(preimages[0])
      db.transaction(() => table.flush())
      const rows = db.prepare('SELECT hash, preimage FROM preimages').all()
      expect(rows.length).toBe(count)
      for (const p of preimages.slice(1)) expect(table.lookup(keccak_256(p))).toEqual(p)
      expect(table.lookup(keccak_256(first))).toEqual(new Uint8Array([7]))
      db.close()
    }
  })
})
