/**
 * Sends a value transfer to the execution node every two seconds (one slot) while Lodestar drives it, then reports
 * how many were mined and in which blocks (JSON on stdout). Bounded: at most `--count` sends and
 * `--seconds` in all. Key 0x…01 is funded by the Lodestar genesis (address 0x7e5f…5bdf).
 */
import { type Hex, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const args = new Map<string, string>()
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1])
const url = args.get('rpc-url') ?? 'http://127.0.0.1:8545'
const count = Number(args.get('count') ?? 20)
const deadline = Date.now() + Number(args.get('seconds') ?? 150) * 1000
const account = privateKeyToAccount(`0x${'00'.repeat(31)}01`)

async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(5000),
  })
  const json = (await res.json()) as { result?: T; error?: { message: string } }
  if (json.error) throw new Error(`${method}: ${json.error.message}`)
  return json.result as T
}

while (Date.now() < deadline) {
  try {
    await rpc('eth_chainId')
    break
  } catch {
    await Bun.sleep(500)
  }
}
const chainId = Number(await rpc<string>('eth_chainId'))
// Start once the consensus client produces blocks, so that the transfers spread over several.
while (Date.now() < deadline && BigInt(await rpc<string>('eth_blockNumber')) < 1n) await Bun.sleep(500)
const hashes: string[] = []
for (let nonce = 0; nonce < count && Date.now() < deadline; nonce++) {
  const raw = await account.signTransaction({
    type: 'eip1559',
    chainId,
    nonce,
    to: '0x000000000000000000000000000000000000beef',
    value: 1n,
    gas: 21000n,
    maxFeePerGas: parseGwei('50'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
  hashes.push(await rpc<string>('eth_sendRawTransaction', [raw as Hex]))
  await Bun.sleep(2000)
}
const blocks = new Set<string>()
let mined = 0
for (const hash of hashes) {
  for (let i = 0; i < 20 && Date.now() < deadline + 30_000; i++) {
    const r = await rpc<{ blockNumber: string; status: string } | null>('eth_getTransactionReceipt', [hash])
    if (r) {
      if (r.status === '0x1') mined++
      blocks.add(r.blockNumber)
      break
    }
    await Bun.sleep(1000)
  }
}
console.log(JSON.stringify({ sent: hashes.length, mined, blocks: [...blocks].map(Number).sort((a, b) => a - b) }))
