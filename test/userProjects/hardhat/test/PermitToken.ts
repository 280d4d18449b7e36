import { expect } from "chai";
import { network } from "hardhat";

const { ethers, networkHelpers } = await network.connect();
const { loadFixture, time } = networkHelpers;

describe("PermitToken", function () {
  async function deployPermitFixture() {
    const [owner, spender, relayer] = await ethers.getSigners();
    const token = await ethers.deployContract("PermitToken", [owner.address]);
    return { token, owner, spender, relayer };
  }

  async function signPermit(token: any, owner: any, spender: string, value: bigint, deadline: bigint) {
    const { chainId } = await ethers.provider.getNetwork();
    const domain = { name: "Permit Token", version: "1", chainId, verifyingContract: await token.getAddress() };
    const types = {
      Permit: [
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    };
    const nonce = await token.nonces(owner.address);
    const signature = await owner.signTypedData(domain, types, { owner: owner.address, spender, value, nonce, deadline });
    return ethers.Signature.from(signature);
  }

  it("Should approve through a permit signed with signTypedData and relayed by another account", async function () {
    const { token, owner, spender, relayer } = await loadFixture(deployPermitFixture);
    const deadline = BigInt(await time.latest()) + 3600n;
    const { v, r, s } = await signPermit(token, owner, spender.address, 300n, deadline);
    await expect(token.connect(relayer).permit(owner.address, spender.address, 300n, deadline, v, r, s))
      .to.emit(token, "Approval")
      .withArgs(owner.address, spender.address, 300n);
    expect(await token.allowance(owner.address, spender.address)).to.equal(300n);
    expect(await token.nonces(owner.address)).to.equal(1n);
    await expect(token.connect(spender).transferFrom(owner.address, spender.address, 300n)).to.changeTokenBalances(
      ethers,
      token,
      [owner, spender],
      [-300n, 300n],
    );
  });

  it("Should refuse an expired permit", async function () {
    const { token, owner, spender } = await loadFixture(deployPermitFixture);
    const deadline = BigInt(await time.latest()) + 60n;
    const { v, r, s } = await signPermit(token, owner, spender.address, 1n, deadline);
    await time.increase(120);
    await expect(token.permit(owner.address, spender.address, 1n, deadline, v, r, s))
      .to.be.revertedWithCustomError(token, "ERC2612ExpiredSignature")
      .withArgs(deadline);
  });

  it("Should sign messages with the node's account", async function () {
    const [, , , signer] = await ethers.getSigners();
    const signature = await signer.signMessage("hello");
    expect(ethers.verifyMessage("hello", signature)).to.equal(signer.address);
  });
});
