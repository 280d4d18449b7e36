#!/usr/bin/env bash
# The execution-apis rpc-compat suite against the compiled binary, as hive runs it: import chain.rlp
# (ethash seals not checked) into a fresh data path, serve JSON-RPC (and the Engine API when the
# binary has it), make block 54 head/safe/finalized, run every .io test once, in order.
# Fails when the pass count drops below `recorded-pass-count:` in docs/conformance.md.
#
#   bash test/conformance/run.sh <shared conformance dir> [rpc-compat options, e.g. --filter eth_get]
#
# BASALT_BIN picks the binary (default dist/basalt); CONFORMANCE_JSON=<file> keeps per-test results,
# CONFORMANCE_LOG=<file> the node's log.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# -P: the runner only starts when its own path has no symlink in it (it compares argv[1] with import.meta.url).
SUITE=$(cd -P "${1:?usage: run.sh <shared conformance dir> [runner options]}" && pwd)
shift
TESTS="$SUITE/execution-apis"
BIN=${BASALT_BIN:-$ROOT/dist/basalt}
DOC="$ROOT/docs/conformance.md"
JWT_HEX=0x7365637265747365637265747365637265747365637265747365637265747365
NETWORK_ID=3503995874084926
START_TIMEOUT_SEC=120
HEAD_NUMBER=54

[ -x "$BIN" ] || { echo "conformance: no binary at $BIN (run make build or set BASALT_BIN)" >&2; exit 2; }
[ -f "$TESTS/chain.rlp" ] || { echo "conformance: no test chain in $TESTS" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/basalt-conformance.XXXXXX")
NODE_PID=
cleanup() {
  if [ -n "$NODE_PID" ] && kill -0 "$NODE_PID" 2>/dev/null; then
    kill "$NODE_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$NODE_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$NODE_PID" 2>/dev/null || true
  fi
  if [ -n "${CONFORMANCE_LOG:-}" ] && [ -f "$WORK/node.log" ]; then cp "$WORK/node.log" "$CONFORMANCE_LOG"; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

rpc() { # rpc <method> <params json> [max seconds]
  curl -sf --max-time "${3:-5}" -H 'content-type: application/json' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":$2}" "http://127.0.0.1:$HTTP_PORT"
}

echo "== import $TESTS/chain.rlp"
"$BIN" blocks import --from "$TESTS/chain.rlp" --genesis-file "$TESTS/genesis.json" --data-path "$WORK/data" \
  --skip-pow-validation-enabled

HTTP_PORT=$(free_port)
RUN_HELP=$("$BIN" run --help 2>/dev/null || true)
RUN_ARGS=(run --genesis-file "$TESTS/genesis.json" --data-path "$WORK/data" --network-id "$NETWORK_ID"
  --min-gas-price 1 --tx-pool-price-bump 0 --rpc-gas-cap 50000000
  --rpc-http-api DEBUG,TRACE,ETH,NET,TXPOOL,WEB3,ADMIN,TESTING --rpc-http-port "$HTTP_PORT" --rpc-ws-enabled=false)
# A lone node under test: no P2P listener on the shared default port.
if [[ "$RUN_HELP" == *--p2p-enabled* ]]; then RUN_ARGS+=(--p2p-enabled=false); fi
RUNNER_ARGS=(--url "http://127.0.0.1:$HTTP_PORT")
if [[ "$RUN_HELP" == *--engine-rpc-enabled* ]]; then
  ENGINE_PORT=$(free_port)
  printf '%s' "$JWT_HEX" >"$WORK/jwtsecret"
  RUN_ARGS+=(--engine-rpc-enabled --engine-rpc-port "$ENGINE_PORT" --engine-jwt-secret "$WORK/jwtsecret")
  RUNNER_ARGS+=(--engine-url "http://127.0.0.1:$ENGINE_PORT" --jwt-secret "$JWT_HEX")
else
  echo "== no Engine API in this binary: head stays at the imported block, safe/finalized unset"
fi

echo "== start: basalt ${RUN_ARGS[*]}"
"$BIN" "${RUN_ARGS[@]}" >"$WORK/node.log" 2>&1 &
NODE_PID=$!
deadline=$((SECONDS + START_TIMEOUT_SEC))
until rpc eth_blockNumber '[]' >/dev/null 2>&1; do
  if ! kill -0 "$NODE_PID" 2>/dev/null; then cat "$WORK/node.log" >&2; echo "conformance: node exited" >&2; exit 1; fi
  if [ $SECONDS -ge $deadline ]; then cat "$WORK/node.log" >&2; echo "conformance: node did not answer" >&2; exit 1; fi
  sleep 0.2
done
# The node loads the KZG setup in the background from its start (seconds of WebAssembly; tens of
# seconds on a loaded machine), and the blob tests time out after 5 s like hive's: wait for it with
# a point-evaluation call (versioned hash of the point at infinity, z = y = 0: a valid proof).
POINT_EVALUATION_INPUT=0x010657f37554c781402a22917dee2f75def7ab966d7b770905398eba3c444014$(printf '0%.0s' $(seq 1 128))c0$(printf '0%.0s' $(seq 1 94))c0$(printf '0%.0s' $(seq 1 94))
rpc eth_call "[{\"to\":\"0x000000000000000000000000000000000000000a\",\"data\":\"$POINT_EVALUATION_INPUT\"},\"latest\"]" \
  "$START_TIMEOUT_SEC" >/dev/null || echo "== KZG warm-up call failed; blob tests may time out"

echo "== run rpc-compat"
JSON_OUT=${CONFORMANCE_JSON:-$WORK/results.json}
node "$SUITE/rpc-compat.mjs" "${RUNNER_ARGS[@]}" --json "$JSON_OUT" "$@" | tee "$WORK/runner.out"
SUMMARY=$(tail -n 1 "$WORK/runner.out")
PASSED=$(sed -n 's/^\([0-9]*\) passed.*/\1/p' <<<"$SUMMARY")
[ -n "$PASSED" ] || { echo "conformance: no summary from the runner" >&2; exit 1; }

if [ $# -gt 0 ]; then
  echo "== partial run ($*): pass count not compared"
  exit 0
fi
RECORDED=$(sed -n 's/^recorded-pass-count: *\([0-9]*\).*/\1/p' "$DOC" 2>/dev/null | head -n 1 || true)
RECORDED=${RECORDED:-0}
if [ "$PASSED" -lt "$RECORDED" ]; then
  echo "conformance: $PASSED passed, below the recorded $RECORDED (docs/conformance.md)" >&2
  exit 1
fi
echo "== $PASSED passed (recorded: $RECORDED)"
