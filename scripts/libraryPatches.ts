/**
 * Text patches of library files, applied by the executable's build (scripts/build.ts) and, under
 * Bun, to the unit tests (test/setup.ts registers them as a runtime plugin), so that the tests run
 * the code the executable runs; under Deno the tests run the libraries unpatched. A patch that no
 * longer finds its text fails the build (and the tests): the library changed and the patch must be
 * looked at again. The performance patches keep results identical (docs/performance.md gives the
 * measurements); `systemContractCalls` changes them where the library departs from Besu.
 */
import type { BunPlugin } from 'bun'
import { SYSTEM_CONTRACTS } from '../src/chain/systemContracts.ts'

interface LibraryPatch {
  /** The library files it applies to. */
  filter: RegExp
  /** Pairs of text found in the file and its replacement, each found exactly once. */
  replacements: [string, string][]
}

/**
 * The EVM interpreter gives every call frame a fresh 8 KiB memory (`CONTAINER_SIZE` in
 * @ethereumjs/evm's memory.js) and grows it in steps of that size. A view call such as an ERC-20
 * `balanceOf` touches a few hundred bytes, and the 8 KiB buffer of every frame, zeroed and
 * collected, cost about a seventh of the node's CPU per `eth_call` at c=32 (docs/performance.md,
 * "Issue 18: the read rows, second round"). Frames start at 1 KiB; memory grows the same way past
 * it (only the step size differs, which nothing observes: gas and contents are the same).
 */
const evmMemoryStart: LibraryPatch = {
  filter: /@ethereumjs[\\/]evm[\\/]dist[\\/](esm|cjs)[\\/]memory\.js$/,
  replacements: [['const CONTAINER_SIZE = 8192;', 'const CONTAINER_SIZE = 1024;']],
}

/**
 * @ethereumjs/util pads bytes (`setLengthLeft`, `setLengthRight`: every MSTORE, SLOAD and SSTORE
 * key, call arguments, account and trie encodings) by spreading two arrays into a new one, element
 * by element through the iterator protocol: about 8 % of the CPU of an ERC-20 `balanceOf` call
 * (docs/performance.md, "Issue 18: the EVM's cost per call"). The padded copy is made with one
 * `set` into a zeroed array instead: the same bytes.
 */
const utilSetLength: LibraryPatch = {
  filter: /@ethereumjs[\\/]util[\\/]dist[\\/](esm|cjs)[\\/]bytes\.js$/,
  replacements: [
    [
      `        return right
            ? new Uint8Array([...msg, ...new Uint8Array(length - msg.length)])
            : new Uint8Array([...new Uint8Array(length - msg.length), ...msg]);`,
      `        const padded = new Uint8Array(length);
        padded.set(msg, right ? 0 : length - msg.length);
        return padded;`,
    ],
  ],
}

/**
 * The EVM library does the EIP-4788 beacon root and EIP-2935 history writes itself, storing into
 * the contract's slots what the specified contract would store, whatever code is at the address.
 * Besu (its `SystemCallProcessor`) and geth run the code there as a system call (from the system
 * address, 30,000,000 gas, the root or the parent hash as input, the system account left as it
 * was). The two agree for the specified contracts; a chain with other code at those addresses
 * (Besu's Osaka Engine acceptance genesis has `0x5f5ff3`, a contract that stores nothing) got
 * another state root in Basalt. The library's writes stay for the specified code (the same state,
 * without an EVM run per block); any other code is run as Besu runs it.
 */
/** Runs the code at `address` (the library's variable) as a system call unless it is `specified`. */
function callUnlessSpecified(address: string, input: string, specified: string): [string, string] {
  const find = `    const code = await vm.stateManager.getCode(${address});
    if (code.length === 0) {`
  return [
    find,
    `    const code = await vm.stateManager.getCode(${address});
    if (code.length > 0 && bytesToHex(code) !== '${specified.toLowerCase()}') {
        await basaltSystemCall(vm, ${address}, ${input});
        return;
    }
    if (code.length === 0) {`,
  ]
}

const systemContractCalls: LibraryPatch = {
  filter: /@ethereumjs[\\/]vm[\\/]dist[\\/]esm[\\/]runBlock\.js$/,
  replacements: [
    [
      `export async function accumulateParentBlockHash(vm, currentBlockNumber, parentHash) {`,
      `async function basaltSystemCall(vm, to, data) {
    const caller = createAddressFromString(bytesToHex(bigIntToAddressBytes(vm.common.param('systemAddress'))));
    const callerAccount = await vm.stateManager.getAccount(caller);
    await vm.evm.runCall({ caller, to, data, gasLimit: BigInt(30000000) });
    if (callerAccount === undefined) await vm.stateManager.deleteAccount(caller);
    else await vm.stateManager.putAccount(caller, callerAccount);
    await vm.evm.journal.cleanup();
}
export async function accumulateParentBlockHash(vm, currentBlockNumber, parentHash) {`,
    ],
    callUnlessSpecified('historyAddress', 'parentHash', SYSTEM_CONTRACTS[1].code),
    callUnlessSpecified('parentBeaconBlockRootAddress', 'root', SYSTEM_CONTRACTS[0].code),
  ],
}

const PATCHES = [evmMemoryStart, utilSetLength, systemContractCalls]

/** `text` of the library file at `path` with its patches applied; throws when one's text is missing. */
function patched(patch: LibraryPatch, text: string, path: string): string {
  let out = text
  for (const [find, replacement] of patch.replacements) {
    const at = out.indexOf(find)
    if (at < 0 || out.indexOf(find, at + 1) >= 0) throw new Error(`${path}: patched text not found once (library changed?)`)
    out = out.slice(0, at) + replacement + out.slice(at + find.length)
  }
  return out
}

/** The library file at `path` (text `text`) as the patches leave it; unchanged when none applies. */
export function patchLibraryFile(path: string, text: string): string {
  const patch = PATCHES.find((p) => p.filter.test(path))
  return patch ? patched(patch, text, path) : text
}

/** A Bun plugin (build or runtime) that applies the patches. */
export const libraryPatches: BunPlugin = {
  name: 'basalt-library-patches',
  setup(build) {
    for (const patch of PATCHES) {
      build.onLoad({ filter: patch.filter }, async (args) => ({
        contents: patched(patch, await Bun.file(args.path).text(), args.path),
        loader: 'js',
      }))
    }
  },
}
