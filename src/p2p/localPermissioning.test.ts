/** Besu's local permissioning: allowlists read from TOML, changed at run time and written back. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from '../runtime/testing.ts'
import { LocalPermissioning } from './localPermissioning.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-perm-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const A = '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73'
const B = '0x627306090abaB3A6e1400e9345bC60c78a8BEf57'
const ID1 = 'ab'.repeat(64)
const ID2 = 'cd'.repeat(64)
const NODE1 = `enode://${ID1}@127.0.0.1:30303`
const NODE2 = `enode://${ID2}@10.0.0.2:30304?discport=30305`

let n = 0
function file(text: string): string {
  const path = join(dir, `permissions_${n++}.toml`)
  writeFileSync(path, text)
  return path
}

describe('LocalPermissioning', () => {
  it('reads both lists of one file and checks senders and nodes against them', () => {
    const path = file(`accounts-allowlist=["${A}"]\nnodes-allowlist=["${NODE1}"]\n`)
    const p = new LocalPermissioning({ accountsFile: path, nodesFile: path })
    expect(p.isSenderPermitted(A.toUpperCase().replace('0X', '0x'))).toBe(true)
    expect(p.isSenderPermitted(B)).toBe(false)
    expect(p.isNodePermitted({ id: ID1, host: '127.0.0.1', port: 30303 })).toBe(true)
    expect(p.isNodePermitted({ id: ID1, host: '127.0.0.1', port: 30304 })).toBe(false)
    expect(p.isNodePermitted({ id: ID2, host: '127.0.0.1', port: 30303 })).toBe(false)
    // A list that is off permits everyone.
    const accountsOnly = new LocalPermissioning({ accountsFile: path })
    expect(accountsOnly.isNodePermitted({ id: ID2, host: '1.2.3.4', port: 1 })).toBe(true)
  })

  it("refuses a bad file with Besu's messages", () => {
    const missing = join(dir, 'none.toml')
    expect(() => new LocalPermissioning({ accountsFile: missing })).toThrow(
      `Unable to read permissioning TOML config file : ${missing}`,
    )
    const noKey = file(`nodes-allowlist=[]\n`)
    expect(() => new LocalPermissioning({ accountsFile: noKey })).toThrow(
      `accounts-allowlist config option missing in TOML config file ${noKey}`,
    )
    expect(() => new LocalPermissioning({ accountsFile: file('accounts-allowlist=["0x12"]\n') })).toThrow(
      'Invalid account 0x12',
    )
    expect(() => new LocalPermissioning({ nodesFile: file('nodes-allowlist=["enode://x@1:2"]\n') })).toThrow(
      'Invalid enode URL enode://x@1:2',
    )
  })

  it('adds and removes with Besu checks, writing the file back', () => {
    const path = file(`accounts-allowlist=["${A}"]\nnodes-allowlist=["${NODE1}"]\n`)
    const p = new LocalPermissioning({ accountsFile: path, nodesFile: path, bootnodes: [NODE1] })
    const accounts = p.accounts!
    expect(accounts.add([])).toBe('emptyEntry')
    expect(accounts.add(['0x12'])).toBe('invalidEntry')
    expect(accounts.add([B, B.toLowerCase()])).toBe('duplicatedEntry')
    expect(accounts.add([A])).toBe('existingEntry')
    expect(accounts.add([B])).toBe('success')
    expect(accounts.list()).toEqual([A, B.toLowerCase()])
    expect(accounts.remove([`0x${'00'.repeat(20)}`])).toBe('absentEntry')
    const nodes = p.nodes!
    expect(nodes.add([NODE2])).toBe('success')
    expect(nodes.remove([NODE1])).toBe('fixedNode')
    expect(nodes.list()).toEqual([NODE1, NODE2])
    // Nodes compare by their listening endpoint, whatever the discovery port.
    expect(nodes.add([`enode://${ID2}@10.0.0.2:30304`])).toBe('existingEntry')
    const written = readFileSync(path, 'utf8')
    expect(written).toBe(`accounts-allowlist=["${A}","${B.toLowerCase()}"]\nnodes-allowlist=["${NODE1}","${NODE2}"]\n`)
    // The file as written is read back the same.
    const again = new LocalPermissioning({ accountsFile: path, nodesFile: path })
    expect(again.accounts!.list()).toEqual(accounts.list())
    expect(again.nodes!.list()).toEqual(nodes.list())
  })

  it('keeps a change in memory only when the file was edited by hand since, and reloads it on request', () => {
    const path = file(`accounts-allowlist=["${A}"]\n`)
    const p = new LocalPermissioning({ accountsFile: path })
    writeFileSync(path, `accounts-allowlist=["${B}"]\n`)
    expect(p.accounts!.add([`0x${'11'.repeat(20)}`])).toBe('fileSync')
    expect(p.accounts!.list()).toEqual([A, `0x${'11'.repeat(20)}`])
    expect(readFileSync(path, 'utf8')).toBe(`accounts-allowlist=["${B}"]\n`)
    p.reload()
    expect(p.accounts!.list()).toEqual([B.toLowerCase()])
    let changes = 0
    p.accounts!.onChange(() => changes++)
    writeFileSync(path, 'accounts-allowlist=["bad"]\n')
    expect(() => p.reload()).toThrow('Invalid account bad')
    expect(p.accounts!.list()).toEqual([B.toLowerCase()])
    expect(changes).toBe(1)
  })

  it('refuses to start when a kept node is off the nodes allowlist', () => {
    const p = new LocalPermissioning({ nodesFile: file(`nodes-allowlist=["${NODE1}"]\n`) })
    expect(() => p.checkNodesAllowed([NODE1])).not.toThrow()
    expect(() => p.checkNodesAllowed([NODE1, NODE2])).toThrow(`Specified node(s) not in nodes-allowlist [${NODE2}]`)
  })
})
