import { expect } from "chai";
import { network } from "hardhat";

const { ethers, networkHelpers } = await network.connect();
const { loadFixture, time, mine } = networkHelpers;

describe("Vesting", function () {
  const DURATION = 1000;
  const AMOUNT = ethers.parseEther("10");

  async function deployVestingFixture() {
    const [, beneficiary] = await ethers.getSigners();
    const start = (await time.latest()) + 100;
    const vesting = await ethers.deployContract("Vesting", [beneficiary.address, start, DURATION], { value: AMOUNT });
    return { vesting, beneficiary, start };
  }

  it("Should release nothing before the start", async function () {
    const { vesting } = await loadFixture(deployVestingFixture);
    expect(await vesting["releasable()"]()).to.equal(0n);
  });

  it("Should release linearly over time", async function () {
    const { vesting, beneficiary, start } = await loadFixture(deployVestingFixture);
    await time.increaseTo(start + DURATION / 4);
    expect(await vesting["releasable()"]()).to.equal(AMOUNT / 4n);
    await time.setNextBlockTimestamp(start + DURATION / 2);
    await expect(vesting["release()"]()).to.changeEtherBalances(ethers, [beneficiary, vesting], [AMOUNT / 2n, -AMOUNT / 2n]);
  });

  it("Should keep the vested amount across mined blocks", async function () {
    const { vesting, start } = await loadFixture(deployVestingFixture);
    await time.increaseTo(start + DURATION);
    await mine(5);
    expect(await vesting["releasable()"]()).to.equal(AMOUNT);
  });

  it("Should release everything after the end", async function () {
    const { vesting, beneficiary, start } = await loadFixture(deployVestingFixture);
    await time.increase(start + DURATION * 2 - (await time.latest()));
    await expect(vesting["release()"]())
      .to.emit(vesting, "EtherReleased")
      .withArgs(AMOUNT);
    expect(await ethers.provider.getBalance(vesting.target)).to.equal(0n);
    expect(await vesting["released()"]()).to.equal(AMOUNT);
    expect(await ethers.provider.getBalance(beneficiary.address)).to.be.greaterThan(AMOUNT);
  });
});
