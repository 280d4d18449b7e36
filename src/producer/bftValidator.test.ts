import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { type BftKind, decodeBftExtraData, genesisExtraData } from '../consensus/bftExtraData.ts'
import { addressOf, commitSealHash, recoverAddress } from '../consensus/bftHashing.ts'
import { codecFor } from '../consensus/qbft/messageCodec.ts'
import { PREPARE } from '../consensus/qbft/messages.ts'
import type { BftTransport } from '../consensus/qbft/transport.ts'
import { openChain, poolChainView } from '../node/node.ts'
import { systemClock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { setLogLevel } from '../primitives/logger.ts'
import { qbftMethods } from '../rpc/bft/bftMethods.ts'
import type { RpcContext } from '../rpc/context.ts'
import { afterAll, describe, expect, it, sleep } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { BftValidator } from './bftValidator.ts'

const KEYS = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i))
const ADDRESSES = KEYS.map(addressOf)
const CONTRACT = '0x0000000000000000000000000000000000008888'
const FUNDED_KEY = hexToBytes('0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63')
setLogLevel('WARN')
const dir = mkdtempSync(join(tmpdir(), 'basalt-bft-validator-'))
const closers: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const close of closers.reverse()) await close()
  rmSync(dir, { recursive: true, force: true })
})

/**
 * An in-process transport between validators; a validator marked down neither sends nor hears. Each
 * message carries its protocol, as the subprotocol it would travel on; `delayMs` holds back the
 * messages of one protocol to one validator.
 */
class Hub {
  readonly handlers = new Map<number, (code: number, data: Uint8Array, kind?: BftKind) => void>()
  readonly down = new Set<number>()
  delayMs?: { to: number; kind: BftKind; ms: number }

  transport(id: number): BftTransport {
    return {
      broadcast: (code, data, kind) => {
        if (this.down.has(id)) return
        for (const [to, h] of this.handlers) {
          if (to === id || this.down.has(to)) continue
          const d = this.delayMs
          if (d && d.to === to && d.kind === kind) setTimeout(() => h(code, data, kind), d.ms)
          else setImmediate(() => h(code, data, kind))
        }
      },
      onMessage: (h) => {
        this.handlers.set(id, h)
        return () => this.handlers.delete(id)
      },
    }
  }
}

interface Node {
  chain: Chain
  pool: TxPool
  validator: BftValidator
}

/** A genesis of the 4 validators; `migration`: IBFT 2.0, then QBFT from block 3. */
function writeGenesis(kind: 'qbft' | 'ibft2' | 'migration'): string {
  const genesisFile = join(dir, `${kind}.json`)
  const section = { blockperiodseconds: 1, requesttimeoutseconds: 2 }
  // The migration's IBFT 2.0 rounds outlast the 1.5 s one validator hears them late (see below).
  const ibft2 = { blockperiodseconds: 1, requesttimeoutseconds: 4 }
  const sections = kind === 'migration' ? { ibft2, qbft: { ...section, startBlock: 3 } } : { [kind]: section }
  const genesis = {
    config: {
      chainId: 1337,
      berlinBlock: 0,
      londonBlock: 0,
      ...sections,
    },
    extraData: bytesToHex(genesisExtraData(kind === 'migration' ? 'ibft2' : kind, KEYS.map(addressOf))),
    gasLimit: '0x1fffffffffffff',
    timestamp: `0x${Math.floor(Date.now() / 1000).toString(16)}`,
    alloc: { fe3b557e8fb62b89f4916b721be55ceb828dbd73: { balance: '0xad78ebc5ac6200000' } },
  }
  writeFileSync(genesisFile, JSON.stringify(genesis))
  return genesisFile
}

async function network(kind: 'qbft' | 'ibft2' | 'migration', hub = new Hub()): Promise<{ nodes: Node[]; hub: Hub }> {
  const genesisFile = writeGenesis(kind)
  const nodes: Node[] = []
  for (const [i, key] of KEYS.entries()) {
    const { chain, bft, close } = await openChain({ genesisFile, dataPath: ':memory:' })
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
    const validator = new BftValidator(chain, pool, bft!.tracker, {
      bft: bft!.options,
      schedule: bft!.schedule,
      privateKey: key,
      clock: systemClock,
      transport: hub.transport(i),
      hasPeers: true,
    })
    closers.push(close, () => validator.stop())
    nodes.push({ chain, pool, validator })
  }
  for (const n of nodes) n.validator.start()
  return { nodes, hub }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await sleep(50)
  }
}

const headOf = (n: Node) => n.chain.head.header.number

async function expectSameChain(nodes: Node[], upTo: bigint): Promise<void> {
  for (let i = 1n; i <= upTo; i++) {
    const hashes = await Promise.all(nodes.map(async (n) => bytesToHex((await n.chain.getBlockByNumber(i))!.hash())))
    expect(new Set(hashes).size).toBe(1)
  }
}

describe.each(['qbft', 'ibft2'] as const)('BftValidator, 4 %s validators in one process', (kind) => {
  it('agree on executed blocks with transactions, and go on with one validator down', async () => {
    const { nodes, hub } = await network(kind)
    const tx = createFeeMarket1559Tx(
      {
        nonce: 0n,
        to: new Uint8Array(20).fill(0xd0),
        value: 7n,
        gasLimit: 21000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: nodes[2].chain.commonForNextBlock() },
    ).sign(FUNDED_KEY)
    await nodes[2].pool.add(tx)
    await waitFor(() => nodes.every((n) => headOf(n) >= 3n), 15_000)
    await expectSameChain(nodes, 3n)
    expect(nodes.every((n) => n.chain.store.readTxLocation(tx.hash()) !== undefined)).toBe(true)
    hub.down.add(3)
    const live = nodes.slice(0, 3)
    const from = headOf(live[0])
    await waitFor(() => live.every((n) => headOf(n) >= from + 5n), 40_000)
    await expectSameChain(live, from + 5n)
    for (const n of nodes) await n.validator.stop()
  }, 60_000)
})

describe('BftValidator, 4 validators migrating from IBFT 2.0 to QBFT at block 3', () => {
  it('switches protocol at block 3; a validator still deciding block 2 keeps the QBFT messages of block 3 until it switches', async () => {
    const hub = new Hub()
    // Validator 3 hears IBFT 2.0 late: it imports block 2 after the others decided block 3 over QBFT.
    hub.delayMs = { to: 3, kind: 'ibft2', ms: 1500 }
    const { nodes } = await network('migration', hub)
    await waitFor(() => nodes.every((n) => headOf(n) >= 5n), 40_000).catch((e) => {
      throw new Error(`${e.message}: heads ${nodes.map(headOf)}`)
    })
    await expectSameChain(nodes, 5n)
    for (const n of nodes) await n.validator.stop()
    const chain = nodes[0].chain
    for (let n = 1n; n <= 5n; n++) {
      const { header } = (await chain.getBlockByNumber(n))!
      const kind = n < 3n ? 'ibft2' : 'qbft'
      const extra = decodeBftExtraData(kind, header.extraData)
      const sealers = extra.seals.map((s) => bytesToHex(recoverAddress(commitSealHash(kind, header, extra), s)!))
      expect(sealers.length).toBeGreaterThanOrEqual(3)
      expect(sealers.every((s) => ADDRESSES.map(bytesToHex).includes(s))).toBe(true)
    }
  }, 60_000)
})

describe.each(['qbft', 'ibft2'] as const)('BftValidator behind the %s network', (kind) => {
  it('cues a sync from its peers when a validator speaks for a later height: once per height, never for a stranger', async () => {
    const { chain, bft, close } = await openChain({ genesisFile: writeGenesis(kind), dataPath: ':memory:' })
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
    let deliver: (code: number, data: Uint8Array) => void = () => {}
    const cues: bigint[] = []
    const validator = new BftValidator(chain, pool, bft!.tracker, {
      bft: bft!.options,
      privateKey: KEYS[0],
      clock: systemClock,
      transport: {
        broadcast: () => {},
        onMessage: (h) => {
          deliver = h
          return () => {}
        },
      },
      hasPeers: true,
      onBehind: (height) => cues.push(height),
    })
    validator.start()
    const codec = codecFor(kind)
    const prepare = (key: Uint8Array, height: bigint) => {
      const signed = codec.signPrepare({ height, round: 0, digest: new Uint8Array(32).fill(7) }, key)
      return codec.encode({ code: PREPARE, signed })
    }
    // This node is at height 1; validators at heights 3 and 5, a stranger at 4.
    deliver(PREPARE, prepare(KEYS[1], 3n))
    deliver(PREPARE, prepare(KEYS[2], 3n))
    deliver(PREPARE, prepare(new Uint8Array(32).fill(9), 4n))
    deliver(PREPARE, prepare(KEYS[3], 5n))
    await waitFor(() => cues.length >= 2, 5_000)
    await sleep(100)
    expect(cues).toEqual([3n, 5n])
    // A message of the height being decided is no cue.
    deliver(PREPARE, prepare(KEYS[1], 1n))
    await sleep(100)
    expect(cues).toEqual([3n, 5n])
    await validator.stop()
    await close()
  })
})

const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0')

/** ABI `address[]` as `getValidators()` returns it: offset 0x20, length, one word per address. */
function abiAddressArray(addresses: Uint8Array[]): string {
  return word('20') + word(addresses.length.toString(16)) + addresses.map((a) => word(bytesToHex(a))).join('')
}

/**
 * A contract whose every call returns `addresses` as ABI data: CODECOPY the 12 bytes after this
 * prologue into memory and RETURN them (PUSH1 len, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 len, PUSH1 0, RETURN).
 */
function constantValidatorContract(addresses: Uint8Array[]): string {
  const data = abiAddressArray(addresses)
  const len = (data.length / 2).toString(16).padStart(2, '0')
  return `0x60${len}600c60003960${len}6000f3${data}`
}

/**
 * Writes a QBFT genesis listing the four validators, whose validators a contract answering `chosen`
 * picks from block `transition` on; returns its path.
 */
function contractGenesis(name: string, transition: number, chosen: Uint8Array[], timestamp: string): string {
  const genesisFile = join(dir, name)
  const genesis = {
    config: {
      chainId: 1337,
      berlinBlock: 0,
      londonBlock: 0,
      qbft: { blockperiodseconds: 1, requesttimeoutseconds: 2 },
      transitions: {
        qbft: [{ block: transition, validatorselectionmode: 'contract', validatorcontractaddress: CONTRACT }],
      },
    },
    extraData: bytesToHex(genesisExtraData('qbft', ADDRESSES)),
    gasLimit: '0x1fffffffffffff',
    timestamp,
    alloc: { [CONTRACT.slice(2)]: { balance: '0x0', code: constantValidatorContract(chosen) } },
  }
  writeFileSync(genesisFile, JSON.stringify(genesis))
  return genesisFile
}

describe('QBFT validators chosen by contract from a transition on', () => {
  it("names the next block's validators from the contract at the head, the head's from its extraData", async () => {
    const chosen = [ADDRESSES[2]]
    const genesisFile = contractGenesis('contract-next.json', 1, chosen, '0x0')
    const { chain, bft, close } = await openChain({ genesisFile, dataPath: ':memory:' })
    closers.push(close)
    const validator = new BftValidator(
      chain,
      new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 1, priceBumpPercent: 10 }),
      bft!.tracker,
      {
        bft: bft!.options,
        schedule: bft!.schedule,
        contract: bft!.contract,
        privateKey: KEYS[0],
        clock: systemClock,
        transport: new Hub().transport(0),
        hasPeers: true,
      },
    )
    // The head (genesis) is sealed by the listed four; block 1, past the transition, by the contract's.
    expect((await validator.validatorsOf(chain.head.header)).map(bytesToHex)).toEqual(ADDRESSES.map(bytesToHex))
    expect((await validator.nextValidators()).map(bytesToHex)).toEqual(chosen.map(bytesToHex))
    // qbft_getValidatorsByBlockNumber: `pending` is the next block's, `latest` the head's.
    const byNumber = qbftMethods.find((m) => m.name === 'qbft_getValidatorsByBlockNumber')!
    const ctx = { chain, validator } as unknown as RpcContext
    expect(await byNumber.call(ctx, ['pending'])).toEqual(chosen.map(bytesToHex))
    expect(await byNumber.call(ctx, ['latest'])).toEqual(ADDRESSES.map(bytesToHex))
  })

  it('seals blocks after the transition by the contract validators only, listing none in extraData', async () => {
    const chosen = [ADDRESSES[0], ADDRESSES[1]].sort((a, b) => Buffer.compare(a, b))
    const genesisFile = contractGenesis('contract.json', 2, chosen, `0x${Math.floor(Date.now() / 1000).toString(16)}`)
    const hub = new Hub()
    const nodes = []
    for (const [i, key] of KEYS.entries()) {
      const { chain, bft, close } = await openChain({ genesisFile, dataPath: ':memory:' })
      const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
      const validator = new BftValidator(chain, pool, bft!.tracker, {
        bft: bft!.options,
        schedule: bft!.schedule,
        contract: bft!.contract,
        privateKey: key,
        clock: systemClock,
        transport: hub.transport(i),
        hasPeers: true,
      })
      closers.push(close, () => validator.stop())
      nodes.push({ chain, validator })
    }
    for (const n of nodes) n.validator.start()
    // Nodes 2 and 3 are no validators after block 1: they neither seal nor hear blocks here (blocks
    // reach non-validators over eth/68, which this in-process network has not).
    const sealers = nodes.slice(0, 2)
    const deadline = Date.now() + 30_000
    while (!sealers.every((n) => n.chain.head.header.number >= 5n)) {
      if (Date.now() > deadline) throw new Error(`timed out at ${nodes.map((n) => n.chain.head.header.number)}`)
      await sleep(50)
    }
    for (const n of nodes) await n.validator.stop()
    const chain = nodes[0].chain
    const block1 = (await chain.getBlockByNumber(1n))!
    expect(decodeBftExtraData('qbft', block1.header.extraData).validators).toHaveLength(4)
    const allowed = chosen.map(bytesToHex)
    for (let n = 2n; n <= 5n; n++) {
      const { header } = (await chain.getBlockByNumber(n))!
      const extra = decodeBftExtraData('qbft', header.extraData)
      expect(extra.validators).toEqual([])
      expect(allowed).toContain(bytesToHex(header.coinbase.bytes))
      const sealers = extra.seals.map((s) => bytesToHex(recoverAddress(commitSealHash('qbft', header, extra), s)!))
      expect(sealers.every((s) => allowed.includes(s))).toBe(true)
      expect(new Set(sealers).size).toBe(2)
    }
    const hashes = await Promise.all(sealers.map(async (n) => bytesToHex((await n.chain.getBlockByNumber(5n))!.hash())))
    expect(new Set(hashes).size).toBe(1)
    // A non-validator imports them with the header rules, reading the contract at each parent.
    const follower = nodes[3].chain
    for (let n = follower.head.header.number + 1n; n <= 5n; n++) {
      await importBlock(follower, (await chain.getBlockByNumber(n))!, { setHead: true })
    }
    expect(bytesToHex(follower.head.hash())).toBe(hashes[0])
  }, 60_000)
})
