/**
 * Text patches of library files, applied by the executable's build and, under Bun, to the unit tests
 * (scripts/libraryPatches.ts makes them a Bun plugin, which scripts/build.ts and test/setup.ts
 * register), and under Node by a module hook (src/runtime/moduleHooks.ts, which src/cli/main.ts and
 * test/setupNode.ts install with them), so that the tests and the node from source run the code the
 * executable runs; Deno has no such hook and runs the libraries unpatched. A patch that no longer
 * finds its text fails the build (and the tests): the library changed and the patch must be looked
 * at again. The performance patches keep results identical (docs/performance.md gives the
 * measurements); `systemContractCalls` changes them where the library departs from Besu.
 *
 * This module imports no library: src/cli/main.ts loads it before the hook that patches them.
 */
import { SYSTEM_CONTRACTS } from './systemContracts.ts'

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
 * The EVM's dynamic gas rules are `async` functions, so each MSTORE, MLOAD, KECCAK256, SLOAD, LOG,
 * RETURN and copy returned a promise that the interpreter had to wait for (src/evm/interpreterLoop.ts
 * runs an opcode at once only when its gas rule returns a number): two promises and two turns of
 * the microtask queue per opcode, about 40 of them in an ERC-20 `transfer`. The rules below await
 * nothing, so they become plain functions: the same gas and the same errors (thrown instead of
 * rejected, which both loops handle alike). A rule that someday awaits fails to load, so the build
 * and the tests fail rather than run it wrong. SSTORE, EXTCODECOPY, CREATE, CREATE2 and
 * SELFDESTRUCT read the state and stay `async`; the CALL family runs through the library's step.
 */
const SYNC_GAS_RULES: [string, number][] = [
  ['EXP', 0x0a],
  ['KECCAK256', 0x20],
  ['CALLDATACOPY', 0x37],
  ['CODECOPY', 0x39],
  ['RETURNDATACOPY', 0x3e],
  ['MLOAD', 0x51],
  ['MSTORE', 0x52],
  ['MSTORE8', 0x53],
  ['SLOAD', 0x54],
  ['MCOPY', 0x5e],
  ['LOG', 0xa0],
  ['RETURN', 0xf3],
  ['REVERT', 0xfd],
]

const evmSyncGasRules: LibraryPatch = {
  filter: /@ethereumjs[\\/]evm[\\/]dist[\\/](esm|cjs)[\\/]opcodes[\\/]gas\.js$/,
  replacements: SYNC_GAS_RULES.map(([name, code]) => {
    const head = `        /* ${name} */\n        0x${code.toString(16).padStart(2, '0')},\n        `
    return [`${head}async function (runState, gas, common) {`, `${head}function (runState, gas, common) {`]
  }),
}

/**
 * @ethereumjs/util's bytes.js builds, when it is loaded, a table of the 65,536 BigInts below 2^16 for
 * `bytesToBigInt` of one- and two-byte inputs: about 3 MiB of the heap from the start on, in every
 * process (a sixth of the node's idle JavaScript heap, and the collector lets the heap grow to
 * about twice its live size between collections, so the peak pays for it twice; docs/performance.md,
 * "Issue 18: memory, fourth round"). The table keeps the 256 one-byte values; a two-byte value is
 * made when asked for. The same values: a BigInt is compared by value, never by identity.
 */
const utilBigIntTable: [string, string][] = [
  [
    `for (let i = 0; i <= 256 * 256 - 1; i++) {
    BIGINT_CACHE[i] = BigInt(i);
}`,
    `for (let i = 0; i <= 255; i++) {
    BIGINT_CACHE[i] = BigInt(i);
}`,
  ],
  ['return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];', 'return BigInt(bytes[0] * 256 + bytes[1]);'],
]

/**
 * @ethereumjs/util pads bytes (`setLengthLeft`, `setLengthRight`: every MSTORE, SLOAD and SSTORE
 * key, call arguments, account and trie encodings) by spreading two arrays into a new one, element
 * by element through the iterator protocol: about 8 % of the CPU of an ERC-20 `balanceOf` call
 * (docs/performance.md, "Issue 18: the EVM's cost per call"). The padded copy is made with one
 * `set` into a zeroed array instead: the same bytes.
 */
const utilSetLength: [string, string] = [
  `        return right
            ? new Uint8Array([...msg, ...new Uint8Array(length - msg.length)])
            : new Uint8Array([...new Uint8Array(length - msg.length), ...msg]);`,
  `        const padded = new Uint8Array(length);
        padded.set(msg, right ? 0 : length - msg.length);
        return padded;`,
]

/**
 * `bytesToBigInt` (CALLDATALOAD, MLOAD, SLOAD, every account field) writes the bytes as a hex
 * string and parses it. Leading zeros are skipped, up to 6 bytes are summed as a number, longer
 * values are joined from 48-bit pieces: the same integer at about 0.6 of the cost per 32-byte word
 * (docs/performance.md, "Issue 18: the read rows, fourth round"). The patch goes after the shared
 * little-endian branch, the one text both builds have in common; the library's own conversion
 * below it is left unreachable.
 */
const utilBytesToBigInt: [string, string] = [
  `        bytes = bytes.slice().reverse();
    }
`,
  `        bytes = bytes.slice().reverse();
    }
    const byteCount = bytes.length;
    let at = 0;
    while (at < byteCount && bytes[at] === 0) at++;
    if (byteCount - at <= 6) {
        let small = 0;
        for (; at < byteCount; at++) small = small * 256 + bytes[at];
        return small < 256 ? BIGINT_CACHE[small] : BigInt(small);
    }
    let head = 0;
    for (let end = at + ((byteCount - at) % 6); at < end; at++) head = head * 256 + bytes[at];
    let value = BigInt(head);
    for (; at < byteCount; at += 6) {
        value = (value << 48n) | BigInt(((bytes[at] * 256 + bytes[at + 1]) * 256 + bytes[at + 2]) * 16777216 +
            ((bytes[at + 3] << 16) | (bytes[at + 4] << 8) | bytes[at + 5]));
    }
    return value;
`,
]

/**
 * `bigIntToBytes` (every MSTORE word, SLOAD and SSTORE key and value, account and transaction
 * fields) prefixed its hex with `0x` for `hexToBytes`, which checks the prefix, tests the string
 * against a regular expression and strips it again. `toString(16)` gives bare hex digits, so the
 * digits go straight to the decoder under `hexToBytes`: the same bytes at about 0.4 of the cost
 * (docs/performance.md, "Issue 18: the token transfer rows").
 */
const utilBigIntToBytes = {
  esm: [
    'const bytes = hexToBytes(`0x${padToEven(num.toString(16))}`);',
    'const bytes = hexToBytesNoble(padToEven(num.toString(16)));',
  ] as [string, string],
  cjs: [
    'const bytes = (0, exports.hexToBytes)(`0x${(0, internal_ts_1.padToEven)(num.toString(16))}`);',
    'const bytes = (0, utils_js_1.hexToBytes)((0, internal_ts_1.padToEven)(num.toString(16)));',
  ] as [string, string],
}

/** The patches of @ethereumjs/util's bytes.js in one of its builds (`esm` or `cjs`). */
const utilBytes = (build: 'esm' | 'cjs'): LibraryPatch => ({
  filter: new RegExp(`@ethereumjs[\\\\/]util[\\\\/]dist[\\\\/]${build}[\\\\/]bytes\\.js$`),
  replacements: [utilSetLength, utilBytesToBigInt, ...utilBigIntTable, utilBigIntToBytes[build]],
})

/**
 * `Common.isActivatedEIP` (asked on most opcodes' gas rules, and by every call's set-up) searches the
 * array of the fork's active EIPs, often to its end for an EIP that is not active: about 1.5 % of
 * the CPU of an ERC-20 `balanceOf` call. It asks a set made from that array instead, made again
 * whenever the library replaces the array (it never changes one in place).
 */
const commonEipSet: LibraryPatch = {
  filter: /@ethereumjs[\\/]common[\\/]dist[\\/](esm|cjs)[\\/]common\.js$/,
  replacements: [
    [
      `    isActivatedEIP(eip) {
        if (this._activatedEIPsCache.includes(eip)) {
            return true;
        }
        return false;
    }`,
      `    isActivatedEIP(eip) {
        if (this._activatedEIPsSetOf !== this._activatedEIPsCache) {
            this._activatedEIPsSet = new Set(this._activatedEIPsCache);
            this._activatedEIPsSetOf = this._activatedEIPsCache;
        }
        return this._activatedEIPsSet.has(eip);
    }`,
    ],
  ],
}

/**
 * EIP-7623's floor counts a transaction's calldata tokens (1 a zero byte, 4 any other) with a
 * BigInt addition per byte, at each of the pool's and the block's checks of a transaction: 68
 * BigInts for an ERC-20 `transfer`. The count is summed as a number and made a BigInt once: the same
 * value (a number holds it exactly far past any calldata a block can carry).
 */
const txFloorTokens: LibraryPatch = {
  filter: /@ethereumjs[\\/]tx[\\/]dist[\\/](esm|cjs)[\\/]util[\\/]intrinsic\.js$/,
  replacements: [
    [
      `        for (let i = 0; i < tx.data.length; i++) {
            tokens += tx.data[i] === 0 ? 1n : 4n;
        }`,
      `        let count = 0;
        for (let i = 0; i < tx.data.length; i++) {
            count += tx.data[i] === 0 ? 1 : 4;
        }
        tokens = BigInt(count);`,
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

const PATCHES = [
  evmMemoryStart,
  evmSyncGasRules,
  txFloorTokens,
  utilBytes('esm'),
  utilBytes('cjs'),
  commonEipSet,
  systemContractCalls,
]

/** `text` of the library file at `path` with its patches applied; throws when one's text is missing. */
function patched(patch: LibraryPatch, text: string, path: string): string {
  let out = text
  for (const [find, replacement] of patch.replacements) {
    const at = out.indexOf(find)
    if (at < 0 || out.indexOf(find, at + 1) >= 0)
      throw new Error(`${path}: patched text not found once (library changed?)`)
    out = out.slice(0, at) + replacement + out.slice(at + find.length)
  }
  return out
}

/** The library file at `path` (text `text`) as the patches leave it; unchanged when none applies. */
export function patchLibraryFile(path: string, text: string): string {
  const patch = PATCHES.find((p) => p.filter.test(path))
  return patch ? patched(patch, text, path) : text
}

/** The paths some patch applies to, one pattern a patch. */
export const PATCHED_FILES: readonly RegExp[] = PATCHES.map((p) => p.filter)

/** The patches as the Node module hook takes them (src/runtime/moduleHooks.ts). */
export const LIBRARY_PATCHES = { files: PATCHED_FILES, apply: patchLibraryFile }
