#!/usr/bin/env bash
# Installs what is missing, then runs every test: formatting and lints, the native tests (the
# engine's unit tests and its GPU tests on Mesa's lavapipe, the simulations, the settings tables,
# the display arithmetic, the command line, the burn reference), then the browser end-to-end tests
# in headless Chromium. Each stage prints its time, and a table of them closes the run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
setup_started=$SECONDS
. "$ROOT/scripts/setup.sh"
cd "$ROOT"
started=$SECONDS
stages=("setup|$((started - setup_started))")

# Runs one named stage and records how long it took.
stage() {
  local name="$1"; shift
  local t0=$SECONDS
  say "$name"
  "$@"
  local took=$((SECONDS - t0))
  stages+=("$name|$took")
  say "$name: ${took} s"
}

lints() {
  cargo fmt --all --check
  cargo clippy -q --workspace --exclude app --all-targets -- -D warnings
  cargo clippy -q -p app --target wasm32-unknown-unknown -- -D warnings
}

stage "fmt and clippy" lints
stage "native tests (engine, state, display, command line, burn reference)" \
  cargo test -q --workspace --exclude app
# The `lab` command line those tests built, for the browser test that trains with it.
export LAB_BIN="$CARGO_TARGET_DIR/debug/lab"
# The e2e build: the release profile's size optimizations (lto, one codegen unit, wasm-opt) buy
# nothing for a test and cost minutes; `scripts/run.sh` keeps them.
stage "app build for the browser tests (trunk, e2e profile)" \
  trunk build --cargo-profile e2e --dist dist
# The same build as a static site under a sub-path, for e2e/site.test.mjs (a course's host).
stage "static site under a sub-path (scripts/site.sh, e2e profile)" \
  bash scripts/site.sh --base /course/lab/ --out target/e2e/site/course/lab --profile e2e
stage "browser end-to-end tests (headless chromium)" \
  node --test --test-reporter=spec --test-concurrency=2 e2e/

say "stage times (s):"
for s in "${stages[@]}"; do printf '  %-72s %5s\n' "${s%%|*}" "${s##*|}"; done
say "all tests passed in $((SECONDS - started)) s (after setup)"
