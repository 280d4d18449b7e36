#!/usr/bin/env bash
# Proof against a real consensus client: Lodestar 1.5.1 (`lodestar dev`, 8 interop validators)
# drives Basalt over the JWT-authenticated Engine API until the EL head has grown by N blocks.
# Wraps the shared runner engine-e2e/lodestar-e2e.sh (see its README): this script writes the
# Shanghai genesis Lodestar 1.5.1 can follow (no Cancun/Prague: it knows no Deneb/Electra), the
# JWT secret and the Basalt command line. Lodestar is installed once into $LS_INSTALL_DIR
# (default /tmp/lodestar) from the pinned package.json, outside the repository.
#
# usage: test/lodestar/run.sh [extra lodestar-e2e.sh options, e.g. --blocks 12 --capella-epoch 1]
# environment: BASALT_BIN (default dist/basalt), SHARED (default ../shared), BASALT_LS_PORT_BASE (default 18500)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
BASALT_BIN=$(readlink -f "${BASALT_BIN:-$ROOT/dist/basalt}")
RUNNER="$SHARED/engine-e2e/lodestar-e2e.sh"
BASE=${BASALT_LS_PORT_BASE:-18500}
RPC_PORT=$((BASE + 45)); ENGINE_PORT=$((BASE + 51))
[ -x "$BASALT_BIN" ] || { echo "FAIL: no Basalt binary at $BASALT_BIN (make build)"; exit 1; }
[ -f "$RUNNER" ] || { echo "FAIL: $RUNNER not found (set SHARED)"; exit 1; }

WORK=$(mktemp -d /tmp/basalt-lodestar.XXXXXX)
SENDER_PID=
trap '[ -z "$SENDER_PID" ] || kill "$SENDER_PID" 2>/dev/null || true; [ -n "${LS_KEEP:-}" ] || rm -rf "$WORK"' EXIT
node -e 'console.log(require("crypto").randomBytes(32).toString("hex"))' > "$WORK/jwt.hex"

# The EL command runs with GENESIS_TIME, SHANGHAI_TIME and JWT_FILE exported by the runner.
cat > "$WORK/el.sh" <<EOS
#!/usr/bin/env bash
set -e
cat > "$WORK/genesis.json" <<JSON
{ "config": { "chainId": 1337, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
    "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0, "muirGlacierBlock": 0,
    "berlinBlock": 0, "londonBlock": 0, "arrowGlacierBlock": 0, "grayGlacierBlock": 0, "mergeNetsplitBlock": 0,
    "terminalTotalDifficulty": 0, "terminalTotalDifficultyPassed": true, "shanghaiTime": \$SHANGHAI_TIME },
  "nonce": "0x0", "timestamp": "0x0", "extraData": "0x", "gasLimit": "0x1c9c380", "difficulty": "0x0",
  "mixHash": "0x0000000000000000000000000000000000000000000000000000000000000000",
  "coinbase": "0x0000000000000000000000000000000000000000", "baseFeePerGas": "0x3b9aca00",
  "alloc": { "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf": { "balance": "0x3635c9adc5dea00000" } } }
JSON
exec "$BASALT_BIN" run --genesis-file "$WORK/genesis.json" --data-path "$WORK/data" \\
  --rpc-http-port $RPC_PORT --rpc-ws-port 0 --p2p-enabled=false \\
  --engine-rpc-enabled --engine-rpc-port $ENGINE_PORT --engine-jwt-secret "\$JWT_FILE"
EOS

echo "[lodestar] workdir $WORK"
# Transfers sent while Lodestar drives the node, so that its blocks carry transactions.
"$ROOT/node_modules/.bin/bun" "$HERE/sendTransfers.ts" --rpc-url "http://127.0.0.1:$RPC_PORT" --count "${LS_TX_COUNT:-16}" \
  --seconds 170 > "$WORK/transfers.json" 2> "$WORK/transfers.log" &
SENDER_PID=$!
status=0
bash "$RUNNER" --install --el-cmd "bash $WORK/el.sh" --engine-url "http://127.0.0.1:$ENGINE_PORT" \
  --jwt "$WORK/jwt.hex" --rpc-url "http://127.0.0.1:$RPC_PORT" --workdir "$WORK/run" "$@" || status=$?
wait "$SENDER_PID" || true
echo "[lodestar] transfers: $(cat "$WORK/transfers.json" 2>/dev/null)"
if ! node -e 'const t=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); process.exit(t.sent>0 && t.mined===t.sent ? 0 : 1)' "$WORK/transfers.json" 2>/dev/null; then
  echo "FAIL: not every transfer sent during the run was mined"; cat "$WORK/transfers.log" 2>/dev/null | tail -5
  status=1
fi
exit "$status"
