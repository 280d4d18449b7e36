// Hardhat's network helpers against Basalt, each helper checked by its effect on the chain.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { network } from 'hardhat'

const { ethers, networkHelpers } = await network.connect({ network: 'basalt' })
const {
  loadFixture,
  time,
  mine,
  mineUpTo,
  impersonateAccount,
  stopImpersonatingAccount,
  setBalance,
  setCode,
  setNonce,
  setStorageAt,
  getStorageAt,
  takeSnapshot,
  dropTransaction,
  setBlockGasLimit,
  setCoinbase,
  setNextBlockBaseFeePerGas,
  setPrevRandao,
  clearSnapshots,
} = networkHelpers

async function deployVault() {
  const [owner, other] = await ethers.getSigners()
  const vault = await ethers.deployContract('Vault', [3600], { value: ethers.parseEther('1') })
  await vault.waitForDeployment()
  return { vault, owner, other }
}

async function deployLongVault() {
  const [owner, other] = await ethers.getSigners()
  const vault = await ethers.deployContract('Vault', [86_400])
  await vault.waitForDeployment()
  return { vault, owner, other }
}

describe('Vault on Basalt', () => {
  it('loadFixture deploys once and restores the fixture state on every later load', async () => {
    const { vault, other } = await loadFixture(deployVault)
    await (await vault.connect(other).getFunction('deposit')({ value: 5n })).wait()
    assert.equal(await vault.deposits(), 1n)
    const again = await loadFixture(deployVault)
    assert.equal(await again.vault.getAddress(), await vault.getAddress())
    assert.equal(await again.vault.deposits(), 0n)
    assert.equal(await ethers.provider.getBalance(await vault.getAddress()), ethers.parseEther('1'))
  })

  it('time.increase and time.increaseTo move block time; withdraw works only after the unlock time', async () => {
    const { vault } = await loadFixture(deployVault)
    const unlockTime = await vault.unlockTime()
    await assert.rejects(vault.withdraw.staticCall())
    const before = await time.latest()
    await time.increase(1800)
    assert.ok((await time.latest()) >= before + 1800)
    await time.increaseTo(unlockTime)
    assert.equal(BigInt(await time.latest()), unlockTime)
    await (await vault.withdraw()).wait()
    assert.equal(await ethers.provider.getBalance(await vault.getAddress()), 0n)
  })

  it('mine seals blocks, at an interval when asked', async () => {
    const start = await time.latestBlock()
    await mine(5)
    assert.equal(await time.latestBlock(), start + 5)
    const t0 = await time.latest()
    await mine(3, { interval: 60 })
    assert.equal(await time.latestBlock(), start + 8)
    assert.equal(await time.latest(), t0 + 1 + 2 * 60)
  })

  it('impersonateAccount and setBalance let a test send as any address', async () => {
    const { vault } = await loadFixture(deployVault)
    const whale = '0x00000000000000000000000000000000000be1a5'
    await setBalance(whale, ethers.parseEther('50'))
    assert.equal(await ethers.provider.getBalance(whale), ethers.parseEther('50'))
    await impersonateAccount(whale)
    const signer = await ethers.getSigner(whale)
    const receipt = await (await vault.connect(signer).getFunction('deposit')({ value: ethers.parseEther('2') })).wait()
    assert.equal(receipt?.from.toLowerCase(), whale)
    assert.equal(await vault.deposits(), 1n)
  })

  it('impersonateAccount works for a contract address too', async () => {
    const { vault } = await loadFixture(deployVault)
    const address = await vault.getAddress()
    await impersonateAccount(address)
    const asVault = await ethers.getSigner(address)
    const payee = '0x00000000000000000000000000000000000be1a7'
    await (await asVault.sendTransaction({ to: payee, value: 123n })).wait()
    assert.equal(await ethers.provider.getBalance(payee), 123n)
    assert.equal(await vault.deposits(), 0n)
  })

  it('setCode, setNonce and setStorageAt change the account', async () => {
    const target = '0x0000000000000000000000000000000000c0ffee'
    await setCode(target, '0x6001600055')
    assert.equal(await ethers.provider.getCode(target), '0x6001600055')
    await setNonce(target, 9)
    assert.equal(await ethers.provider.getTransactionCount(target), 9)
    await setStorageAt(target, 3, 77)
    assert.equal(BigInt(await ethers.provider.getStorage(target, 3)), 77n)
  })

  it('takeSnapshot().restore() rolls the chain back', async () => {
    const snapshot = await takeSnapshot()
    const block = await time.latestBlock()
    await mine(4)
    await setBalance('0x0000000000000000000000000000000000000bad', 1234n)
    await snapshot.restore()
    assert.equal(await time.latestBlock(), block)
    assert.equal(await ethers.provider.getBalance('0x0000000000000000000000000000000000000bad'), 0n)
  })

  it('mineUpTo and time.setNextBlockTimestamp place the next blocks', async () => {
    const target = (await time.latestBlock()) + 3
    await mineUpTo(target)
    assert.equal(await time.latestBlock(), target)
    const at = (await time.latest()) + 500
    await time.setNextBlockTimestamp(at)
    await mine()
    assert.equal(await time.latest(), at)
  })

  it('the next block takes the coinbase, base fee, gas limit and prevrandao set for it', async () => {
    const coinbase = '0x00000000000000000000000000000000000c0b1e'
    await setCoinbase(coinbase)
    await setNextBlockBaseFeePerGas(2_000_000_000n)
    await setBlockGasLimit(40_000_000)
    await setPrevRandao(77)
    await mine()
    const block = await ethers.provider.send('eth_getBlockByNumber', ['latest', false])
    assert.equal(block.miner, coinbase)
    assert.equal(BigInt(block.baseFeePerGas), 2_000_000_000n)
    assert.equal(BigInt(block.gasLimit), 40_000_000n)
    assert.equal(BigInt(block.mixHash), 77n)
  })

  it('getStorageAt reads a slot; stopImpersonatingAccount ends impersonation', async () => {
    const { vault, owner } = await loadFixture(deployVault)
    assert.equal(BigInt(await getStorageAt(await vault.getAddress(), 0)), BigInt(owner.address))
    const whale = '0x00000000000000000000000000000000000be1a6'
    await setBalance(whale, ethers.parseEther('1'))
    await impersonateAccount(whale)
    await stopImpersonatingAccount(whale)
    await assert.rejects(ethers.provider.send('eth_sendTransaction', [{ from: whale, to: whale }]))
  })

  it('dropTransaction removes a pending transaction', async () => {
    const [, , sender] = await ethers.getSigners()
    await ethers.provider.send('evm_setAutomine', [false])
    try {
      const tx = await sender.sendTransaction({ to: sender.address, value: 1n })
      assert.equal(await dropTransaction(tx.hash), true)
      await mine()
      assert.equal(await ethers.provider.getTransactionReceipt(tx.hash), null)
    } finally {
      await ethers.provider.send('evm_setAutomine', [true])
    }
  })

  it('loadFixture keeps one snapshot per fixture, and clearSnapshots makes the next load run it again', async () => {
    const first = await loadFixture(deployVault)
    const second = await loadFixture(deployLongVault)
    assert.notEqual(await second.vault.getAddress(), await first.vault.getAddress())
    assert.ok((await second.vault.unlockTime()) > (await first.vault.unlockTime()) + 80_000n)
    const back = await loadFixture(deployVault)
    assert.equal(await back.vault.getAddress(), await first.vault.getAddress())
    // The second fixture's contract is gone with the revert to the first one's snapshot.
    assert.equal(await ethers.provider.getCode(await second.vault.getAddress()), '0x')
    clearSnapshots()
    const fresh = await loadFixture(deployVault)
    assert.notEqual(await fresh.vault.getAddress(), await first.vault.getAddress())
  })

  it('a snapshot restores again and again; takeSnapshot keeps pending settings out of it', async () => {
    const payee = '0x0000000000000000000000000000000000000b0b'
    const snapshot = await takeSnapshot()
    const block = await time.latestBlock()
    for (const amount of [5n, 6n]) {
      await setBalance(payee, amount)
      await mine(2)
      assert.equal(await ethers.provider.getBalance(payee), amount)
      await snapshot.restore()
      assert.equal(await time.latestBlock(), block)
      assert.equal(await ethers.provider.getBalance(payee), 0n)
    }
  })

  it('time.increase answers the new time; time.duration converts; Date arguments are taken', async () => {
    const before = await time.latest()
    const after = await time.increase(time.duration.hours(2))
    assert.equal(after, await time.latest())
    assert.ok(after >= before + 7200)
    assert.equal(time.duration.days(1), 86_400)
    assert.equal(time.duration.weeks(1), 604_800)
    const at = new Date((after + time.duration.minutes(10)) * 1000)
    await time.setNextBlockTimestamp(at)
    await mine()
    assert.equal(await time.latest(), after + 600)
    await time.increaseTo(new Date((after + 3600) * 1000))
    assert.equal(await time.latest(), after + 3600)
  })

  it('getStorageAt reads a slot at an earlier block; mine takes bigint and hex counts', async () => {
    const { vault } = await loadFixture(deployVault)
    const address = await vault.getAddress()
    await (await vault.getFunction('deposit')({ value: 1n })).wait()
    const once = await time.latestBlock()
    await (await vault.getFunction('deposit')({ value: 1n })).wait()
    assert.equal(BigInt(await getStorageAt(address, 2)), 2n)
    assert.equal(BigInt(await getStorageAt(address, 2, once)), 1n)
    assert.equal(BigInt(await getStorageAt(address, 2, 'earliest')), 0n)
    const start = await time.latestBlock()
    await mine(2n)
    await mine('0x3')
    assert.equal(await time.latestBlock(), start + 5)
  })

  it("a revert carries its reason and revert data, and a deposit's event its fields", async () => {
    const { vault, other } = await loadFixture(deployVault)
    // What Hardhat's chai matchers read: the revert data on the provider's error (Error(string)).
    const reverts = (reason: string) => (e: { message: string; data?: string }) =>
      e.message.toLowerCase().includes(`execution reverted: ${reason}`) &&
      e.data !== undefined &&
      vault.interface.parseError(e.data)?.args[0] === reason
    await assert.rejects(vault.withdraw(), reverts('locked'))
    await time.increaseTo(await vault.unlockTime())
    await assert.rejects(vault.connect(other).getFunction('withdraw')(), reverts('not owner'))
    const receipt = await (await vault.connect(other).getFunction('deposit')({ value: 7n })).wait()
    const [event] = (receipt?.logs ?? []).map((l: { topics: string[]; data: string }) => vault.interface.parseLog(l))
    assert.equal(event?.name, 'Deposited')
    assert.equal(event?.args.from, other.address)
    assert.equal(event?.args.amount, 7n)
  })
})
