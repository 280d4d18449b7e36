#!/usr/bin/env bash
# Runs the README's "Use it in CI" job without GitHub (`make test-ci-snippet`): the build and start
# commands are read out of the README's snippet and run as written, on a clean clone of this
# repository's committed HEAD in `.basalt` beside a project (test/foundry), then the project's
# `forge script --broadcast` and `forge test --fork-url` run against the node. The one change: the
# node listens on a free port instead of 8545 (other nodes may run on this machine), with the
# WebSocket listener off. The first build installs Basalt's packages from the npm registry (or the
# npm cache). Everything goes under one temp dir, removed at exit, with the node.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FORGE="$ROOT/node_modules/@foundry-rs/forge-linux-amd64/bin/forge"
[[ -x "$FORGE" ]] || { echo "missing $FORGE (run make install)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/basalt-ci-snippet-XXXXXX")
trap 'if [[ -n "${BASALT_PID:-}" ]]; then kill "$BASALT_PID" 2>/dev/null || true; wait "$BASALT_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT

# The commands of a step of the README's snippet: `run: cmd`, or the lines of `run: |`.
step_commands() {
  node -e '
    const md = require("fs").readFileSync(process.argv[1], "utf8")
    const yaml = md.split("### Use it in CI")[1].split("```yaml")[1].split("```")[0].split("\n")
    const at = yaml.findIndex((l) => l.trim() === `- name: ${process.argv[2]}`)
    if (at < 0) throw new Error(`no step ${process.argv[2]} in the README snippet`)
    const out = []
    for (let i = at + 1; i < yaml.length && !yaml[i].trimStart().startsWith("- "); i++) {
      const l = yaml[i].trim()
      if (l.startsWith("run: |")) continue
      if (l.startsWith("run: ")) out.push(l.slice(5))
      else if (!l.startsWith("if: ") && l) out.push(l)
    }
    console.log(out.join("\n"))
  ' "$ROOT/README.md" "$1"
}
BUILD=$(step_commands 'Build Basalt')
PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
START=$(step_commands 'Start Basalt' |
  sed -e "s#run --data-path#run --rpc-http-port $PORT --rpc-ws-enabled=false --data-path#" \
    -e "s#127.0.0.1:8545#127.0.0.1:$PORT#g" -e 's#&$#\& BASALT_PID=$!#')
DEV_KEY=$(grep -oE 'DEV_KEY: "0x[0-9a-f]{64}"' "$ROOT/README.md" | grep -oE '0x[0-9a-f]{64}')

cp -r "$ROOT/test/foundry" "$WORK/project"
# The project's own compiler package (solc.mjs loads npm solc), as its checkout would have it installed.
ln -s "$ROOT/node_modules" "$WORK/project/node_modules"
git clone --quiet "$ROOT" "$WORK/project/.basalt"
cd "$WORK/project"
echo "== $BUILD"
eval "$BUILD"
echo "== $START"
eval "$START"
echo
URL="http://127.0.0.1:$PORT"
export HOME="$WORK/home" NO_COLOR=1
"$FORGE" script script/Deploy.s.sol:Deploy --rpc-url "$URL" --broadcast --private-key "$DEV_KEY"
VAULT=$(node -e 'console.log(require(process.argv[1]).transactions[0].contractAddress)' \
  "$WORK/project/broadcast/Deploy.s.sol/1337/run-latest.json")
VAULT=$VAULT "$FORGE" test --fork-url "$URL"
echo "== the README's CI steps work"
