import { expect } from "chai";
import { anyValue } from "@nomicfoundation/hardhat-ethers-chai-matchers/withArgs";
import { network } from "hardhat";

const { ethers, networkHelpers } = await network.connect();
const { loadFixture, time } = networkHelpers;

describe("Vault", function () {
  async function deployVaultFixture() {
    const ONE_YEAR_IN_SECS = 365 * 24 * 60 * 60;
    const lockedAmount = 1_000_000_000n;
    const releaseTime = (await time.latest()) + ONE_YEAR_IN_SECS;
    const [owner, otherAccount] = await ethers.getSigners();
    const vault = await ethers.deployContract("Vault", [releaseTime], { value: lockedAmount });
    return { vault, releaseTime, lockedAmount, owner, otherAccount };
  }

  describe("Deployment", function () {
    it("Should set the right releaseTime and owner", async function () {
      const { vault, releaseTime, owner } = await loadFixture(deployVaultFixture);
      expect(await vault.releaseTime()).to.equal(releaseTime);
      expect(await vault.owner()).to.equal(owner.address);
    });

    it("Should receive and store the funds", async function () {
      const { vault, lockedAmount } = await loadFixture(deployVaultFixture);
      expect(await ethers.provider.getBalance(vault.target)).to.equal(lockedAmount);
    });

    it("Should fail if the releaseTime is not in the future", async function () {
      const latestTime = await time.latest();
      await expect(ethers.deployContract("Vault", [latestTime], { value: 1 })).to.be.revertedWith(
        "Release time should be in the future",
      );
    });
  });

  describe("Withdrawals", function () {
    it("Should revert with the right error if called too soon", async function () {
      const { vault } = await loadFixture(deployVaultFixture);
      await expect(vault.withdraw()).to.be.revertedWith("You can't withdraw yet");
    });

    it("Should revert with the right error if called from another account", async function () {
      const { vault, releaseTime, otherAccount } = await loadFixture(deployVaultFixture);
      await time.increaseTo(releaseTime);
      await expect(vault.connect(otherAccount).withdraw())
        .to.be.revertedWithCustomError(vault, "OwnableUnauthorizedAccount")
        .withArgs(otherAccount.address);
    });

    it("Shouldn't fail if the releaseTime has arrived and the owner calls it", async function () {
      const { vault, releaseTime } = await loadFixture(deployVaultFixture);
      await time.increaseTo(releaseTime);
      await expect(vault.withdraw()).not.to.revert(ethers);
    });

    it("Should emit an event on withdrawals", async function () {
      const { vault, releaseTime, lockedAmount } = await loadFixture(deployVaultFixture);
      await time.increaseTo(releaseTime);
      await expect(vault.withdraw()).to.emit(vault, "Withdrawal").withArgs(lockedAmount, anyValue);
    });

    it("Should transfer the funds to the owner", async function () {
      const { vault, releaseTime, lockedAmount, owner } = await loadFixture(deployVaultFixture);
      await time.increaseTo(releaseTime);
      await expect(vault.withdraw()).to.changeEtherBalances(ethers, [owner, vault], [lockedAmount, -lockedAmount]);
    });
  });
});
