import { expect } from "chai";
import { network } from "hardhat";

const { ethers, networkHelpers } = await network.connect();
const { loadFixture, impersonateAccount, stopImpersonatingAccount, setBalance, setCode, setStorageAt, takeSnapshot, mine, time } =
  networkHelpers;

describe("Token", function () {
  async function deployTokenFixture() {
    const [owner, alice, bob] = await ethers.getSigners();
    const token = await ethers.deployContract("Token", [owner.address]);
    await token.mint(alice.address, 1000n);
    return { token, owner, alice, bob };
  }

  it("Should mint only for the owner", async function () {
    const { token, alice } = await loadFixture(deployTokenFixture);
    expect(await token.balanceOf(alice.address)).to.equal(1000n);
    await expect(token.connect(alice).mint(alice.address, 1n))
      .to.be.revertedWithCustomError(token, "OwnableUnauthorizedAccount")
      .withArgs(alice.address);
  });

  it("Should transfer tokens and emit Transfer", async function () {
    const { token, alice, bob } = await loadFixture(deployTokenFixture);
    await expect(token.connect(alice).transfer(bob.address, 250n))
      .to.emit(token, "Transfer")
      .withArgs(alice.address, bob.address, 250n);
    await expect(token.connect(alice).transfer(bob.address, 50n)).to.changeTokenBalances(ethers, token, [alice, bob], [-50n, 50n]);
  });

  it("Should revert a transfer above the balance", async function () {
    const { token, alice, bob } = await loadFixture(deployTokenFixture);
    await expect(token.connect(bob).transfer(alice.address, 1n))
      .to.be.revertedWithCustomError(token, "ERC20InsufficientBalance")
      .withArgs(bob.address, 0n, 1n);
  });

  it("Should let an impersonated holder without ether move its tokens once funded", async function () {
    const { token, bob } = await loadFixture(deployTokenFixture);
    const holder = "0x000000000000000000000000000000000000c0de";
    await token.mint(holder, 500n);
    await impersonateAccount(holder);
    await setBalance(holder, ethers.parseEther("1"));
    const signer = await ethers.getSigner(holder);
    await expect(token.connect(signer).transfer(bob.address, 500n)).to.changeTokenBalances(ethers, token, [holder, bob], [-500n, 500n]);
    await stopImpersonatingAccount(holder);
    expect(await ethers.provider.getBalance(holder)).to.be.lessThan(ethers.parseEther("1"));
  });

  it("Should read code and storage set from outside", async function () {
    const { token, alice } = await loadFixture(deployTokenFixture);
    const target = "0x0000000000000000000000000000000000001234";
    await setCode(target, await ethers.provider.getCode(token.target));
    // An ERC20's _balances mapping is its first slot: balanceOf(alice) at keccak(alice . 0).
    const slot = ethers.solidityPackedKeccak256(["uint256", "uint256"], [alice.address, 0]);
    await setStorageAt(target, slot, 77n);
    const copy = await ethers.getContractAt("Token", target);
    expect(await copy.balanceOf(alice.address)).to.equal(77n);
  });

  it("Should go back to a snapshot", async function () {
    const { token, alice, bob } = await loadFixture(deployTokenFixture);
    const snapshot = await takeSnapshot();
    const before = await ethers.provider.getBlockNumber();
    await token.connect(alice).transfer(bob.address, 1000n);
    await mine(10, { interval: 60 });
    expect(await ethers.provider.getBlockNumber()).to.equal(before + 11);
    await snapshot.restore();
    expect(await ethers.provider.getBlockNumber()).to.equal(before);
    expect(await token.balanceOf(bob.address)).to.equal(0n);
    expect(await time.latestBlock()).to.equal(before);
  });
});
