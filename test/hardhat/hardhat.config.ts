// A Hardhat 3 project run by test/e2e/hardhat.test.ts against dist/basalt (network `basalt`, at
// BASALT_URL), offline: the compiler is the npm solc package's soljson.js. Build output goes to
// HARDHAT_WORK_DIR so that a run leaves nothing in the repository.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import hardhatEthers from '@nomicfoundation/hardhat-ethers'
import hardhatNetworkHelpers from '@nomicfoundation/hardhat-network-helpers'
import hardhatNodeTestRunner from '@nomicfoundation/hardhat-node-test-runner'
import { defineConfig } from 'hardhat/config'

const require = createRequire(import.meta.url)
const work = process.env.HARDHAT_WORK_DIR ?? join(import.meta.dirname, '.work')

export default defineConfig({
  plugins: [hardhatEthers, hardhatNetworkHelpers, hardhatNodeTestRunner],
  solidity: { version: '0.8.37', path: require.resolve('solc/soljson.js') },
  paths: {
    // The contracts of the Foundry project next door: one source, both tools.
    sources: join(import.meta.dirname, '../foundry/src'),
    tests: { nodejs: join(import.meta.dirname, 'test'), solidity: join(import.meta.dirname, 'test') },
    artifacts: join(work, 'artifacts'),
    cache: join(work, 'cache'),
  },
  networks: {
    basalt: { type: 'http', chainType: 'l1', url: process.env.BASALT_URL ?? 'http://127.0.0.1:8545' },
  },
})
