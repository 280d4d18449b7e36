import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from '../runtime/testing.ts'
import { readStaticNodes } from './network.ts'

const ID = 'ab'.repeat(64)
const dir = mkdtempSync(join(tmpdir(), 'basalt-static-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('readStaticNodes', () => {
  it('reads a JSON array of enode URLs, and nothing from a missing file', () => {
    const file = join(dir, 'static-nodes.json')
    writeFileSync(file, JSON.stringify([`enode://${ID}@127.0.0.1:30303`, `enode://${ID}@10.0.0.1:30304?discport=0`]))
    expect(readStaticNodes(file)).toEqual([
      { id: ID, host: '127.0.0.1', port: 30303, discoveryPort: 30303 },
      { id: ID, host: '10.0.0.1', port: 30304, discoveryPort: 0 },
    ])
    expect(readStaticNodes(join(dir, 'absent.json'))).toEqual([])
  })

  it('names the file and the entry it cannot use', () => {
    const file = join(dir, 'bad.json')
    writeFileSync(file, JSON.stringify(['enode://12@1.2.3.4:5']))
    expect(() => readStaticNodes(file)).toThrow(`static nodes file ${file}: invalid enode URL 'enode://12@1.2.3.4:5'`)
    writeFileSync(file, '{')
    expect(() => readStaticNodes(file)).toThrow(`cannot read static nodes file ${file}`)
  })
})
