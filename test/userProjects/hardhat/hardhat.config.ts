// A Hardhat 3 project as the mocha-ethers template writes one. Two differences, both for running
// offline: the compiler is the npm solc package's soljson.js (no compiler download), and the one
// network is an `http` node at NODE_URL (Anvil or Basalt), whose unlocked accounts are the signers.
import { createRequire } from "node:module";
import hardhatToolboxMochaEthersPlugin from "@nomicfoundation/hardhat-toolbox-mocha-ethers";
import { defineConfig } from "hardhat/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  plugins: [hardhatToolboxMochaEthersPlugin],
  solidity: {
    version: "0.8.28",
    path: require.resolve("solc/soljson.js"),
    settings: { optimizer: { enabled: true, runs: 200 } },
  },
  networks: {
    ci: {
      type: "http",
      chainType: "l1",
      url: process.env.NODE_URL ?? "http://127.0.0.1:8545",
    },
  },
});
