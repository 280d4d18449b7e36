// Node-side signing through Hardhat's ethers signers (the node's unlocked accounts): an EIP-2612
// permit signed with signer.signTypedData and submitted by another account, and signMessage.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { network } from 'hardhat'

const { ethers } = await network.connect({ network: 'basalt' })

describe('signing on Basalt', () => {
  it('signTypedData signs a permit that the token accepts from another sender', async () => {
    const [owner, spender] = await ethers.getSigners()
    const token = await ethers.deployContract('PermitToken', [1000n])
    await token.waitForDeployment()
    const { chainId } = await ethers.provider.getNetwork()
    const deadline = BigInt((await ethers.provider.getBlock('latest'))!.timestamp + 3600)
    const domain = { name: 'Permit Token', version: '1', chainId, verifyingContract: await token.getAddress() }
    const types = {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    }
    const value = { owner: owner.address, spender: spender.address, value: 250n, nonce: 0n, deadline }
    const signature = await owner.signTypedData(domain, types, value)
    assert.equal(ethers.verifyTypedData(domain, types, value, signature), owner.address)
    const { v, r, s } = ethers.Signature.from(signature)
    const asSpender = token.connect(spender) as typeof token
    await (await asSpender.getFunction('permit')(owner.address, spender.address, 250n, deadline, v, r, s)).wait()
    assert.equal(await token.allowance(owner.address, spender.address), 250n)
    assert.equal(await token.nonces(owner.address), 1n)
    await (await asSpender.getFunction('transferFrom')(owner.address, spender.address, 100n)).wait()
    assert.equal(await token.balanceOf(spender.address), 100n)
    // The same signature again: the nonce moved on, so it recovers another address.
    await assert.rejects(
      asSpender.getFunction('permit').staticCall(owner.address, spender.address, 250n, deadline, v, r, s),
    )
  })

  it('signMessage signs an EIP-191 message that recovers the signer', async () => {
    const [, , signer] = await ethers.getSigners()
    const signature = await signer.signMessage('hello from a test')
    assert.equal(ethers.verifyMessage('hello from a test', signature), signer.address)
  })
})
