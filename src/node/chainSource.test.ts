import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEV_CHAIN_ID } from '../chain/devIds.ts'
import { afterAll, describe, expect, it } from '../runtime/testing.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { writeForkRemote } from '../storage/forkCache.ts'
import { openSqlite } from '../storage/sqlite.ts'
import { restartChainId } from './chainSource.ts'
import { databaseFile } from './dataPath.ts'
import { openChain } from './node.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-chain-source-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** What a restart of `dataPath` under `config` may answer before opening the chain. */
async function earlyChainId(dataPath: string, config: { genesisFile?: string; fork?: { url: string } } = {}) {
  const db = await openSqlite(databaseFile(dataPath))
  try {
    return restartChainId(new ChainStore(db), config as Parameters<typeof restartChainId>[1])
  } finally {
    db.close()
  }
}

const genesisText = (chainId: number) =>
  JSON.stringify({ config: { chainId, londonBlock: 0 }, gasLimit: '0x1c9c380', difficulty: '0x1', alloc: {} })

describe('the chain id a restart answers before opening the chain', () => {
  it('is the dev chain id after the dev chain was opened, and the last one anvil_setChainId stored', async () => {
    const dataPath = join(dir, 'dev')
    let opened = await openChain({ dataPath })
    opened.close()
    expect(await earlyChainId(dataPath)).toBe(DEV_CHAIN_ID)
    // Another genesis or a fork is known only once the chain is open.
    const genesisFile = join(dir, 'other.json')
    writeFileSync(genesisFile, genesisText(4242))
    expect(await earlyChainId(dataPath, { genesisFile })).toBeUndefined()
    expect(await earlyChainId(dataPath, { fork: { url: 'http://127.0.0.1:1' } })).toBeUndefined()
    opened = await openChain({ dataPath })
    opened.chain.setChainId(31337n)
    opened.close()
    expect(await earlyChainId(dataPath)).toBe(31337n)
  })

  it('is the genesis file chain id while the file is unchanged', async () => {
    const dataPath = join(dir, 'custom')
    const genesisFile = join(dir, 'custom.json')
    writeFileSync(genesisFile, genesisText(4242))
    const opened = await openChain({ dataPath, genesisFile })
    expect(opened.chain.common.chainId()).toBe(4242n)
    opened.close()
    expect(await earlyChainId(dataPath, { genesisFile })).toBe(4242n)
    expect(await earlyChainId(dataPath)).toBeUndefined()
    writeFileSync(genesisFile, genesisText(4243))
    expect(await earlyChainId(dataPath, { genesisFile })).toBeUndefined()
  })

  it('is unknown on a data path that holds a fork', async () => {
    const dataPath = join(dir, 'forked')
    const opened = await openChain({ dataPath })
    writeForkRemote(opened.chain.store, 'http://127.0.0.1:1')
    opened.close()
    expect(await earlyChainId(dataPath)).toBeUndefined()
  })
})
