#!/usr/bin/env bash
# Installs what is missing, then runs every test: formatting, the native build (linted), the
# native tests (the engine's unit tests and its GPU tests on Mesa's lavapipe, the simulations, the
# settings tables, the display arithmetic, the command line, the class server), the class
# server's tests again on PostgreSQL, the settings' counts again on wasm32 under node, the burn
# reference in a stage of its own, then the browser end-to-end tests in headless Chromium. Each stage prints its time, and a table of them closes the run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
setup_started=$SECONDS
# The data sets are converted after the native build, by the `lab` it makes (setup.sh says why).
export LAB_DATA_LATER=1
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

# clippy is the compiler of the workspace's own crates for the rest of the run (`cargo clippy` is
# `cargo check` with this same wrapper): the lints run inside the builds the tests need anyway, so
# a new machine compiles the dependencies once, not once to check and again to test. The app is
# linted for wasm32 the same way, in its build for the browser tests.
export RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)"
export CLIPPY_ARGS="$LAB_CLIPPY_ARGS"
stage "fmt" cargo fmt --all --check
stage "native build, linted (every target of the default members, clippy as their compiler)" \
  cargo test -q --all-targets --no-run
# The `lab` command line that build made: it converts the data sets here, scaffolds the new-lab
# check's lab and trains in the vision lab's browser test.
export LAB_BIN="$CARGO_TARGET_DIR/debug/lab"
stage "data sets (MNIST, Fashion-MNIST; converted once)" prepare_data "$LAB_BIN"
stage "native tests (engine, simulations, state, display, command line, class server)" \
  cargo test -q
# The class server's tests again on PostgreSQL, on a server of the run's own (loopback, a free
# port), with the test only PostgreSQL runs: two instances of the server on one database.
class_on_postgres() {
  local dir="${TMPDIR:-/tmp}/lab-class-postgres" started
  if ! started="$(bash scripts/postgres.sh start "$dir")"; then
    say "skipped: PostgreSQL could not be started here (scripts/postgres.sh said why above)"
    return 0
  fi
  eval "$started"
  local status=0
  cargo test -q -p lab_class --test class || status=$?
  bash scripts/postgres.sh stop "$dir"
  unset LAB_CLASS_PG
  return "$status"
}
stage "class server on PostgreSQL (its tests again; two instances on one database)" class_on_postgres
# The settings' extremes and the counts they give, compiled for wasm32 (where a usize is 32 bits)
# and run under node: state/tests/wide_counts.rs, which the native stage ran too (no -q: cargo
# would hand it to wasm-bindgen-test-runner, which takes no such flag).
stage "wasm32 (every setting's extremes and the labs' counts, under node)" \
  env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test -p lab_state --target wasm32-unknown-unknown --test wasm32
# burn, the independent reference, is most of the lock file: built once, for its tests alone (the
# oracle's own code linted in that build, as above).
stage "burn reference (whole training steps against burn)" \
  cargo test -q -p burn_oracle
stage "a new lab (lab new-lab in a copy: at most ten files, it builds, the registry's checks)" \
  bash scripts/check-new-lab.sh
# The e2e build: the release profile's size optimizations (lto, one codegen unit, wasm-opt) buy
# nothing for a test and cost minutes; `scripts/run.sh` keeps them. clippy lints the app and the
# crates under it for wasm32 as it builds them.
stage "app build for the browser tests, linted for wasm32 (scripts/build-app.mjs, e2e profile)" \
  node scripts/build-app.mjs --profile e2e --dist dist
# The same build as a static site under a sub-path, for e2e/site.test.mjs (a course's host).
stage "static site under a sub-path (scripts/site.sh, e2e profile)" \
  bash scripts/site.sh --base /course/lab/ --out target/e2e/site/course/lab --profile e2e
# One Chromium (with WebGPU and without) serves every test file: e2e/browsers.mjs.
browser_tests() {
  local addresses="$CARGO_TARGET_DIR/e2e-browsers.json"
  rm -f "$addresses"
  node e2e/browsers.mjs "$addresses" &
  BROWSER_SERVER=$!
  # Stopped however the tests end (a failure exits the script here).
  trap 'kill "${BROWSER_SERVER:-}" 2>/dev/null || true' EXIT
  for _ in $(seq 300); do [ -f "$addresses" ] || sleep 0.1; done
  [ -f "$addresses" ] || { echo "e2e/browsers.mjs started no browser" >&2; return 1; }
  E2E_BROWSERS="$addresses" node --test --test-reporter=spec --test-concurrency=2 e2e/
  kill "$BROWSER_SERVER"
  wait "$BROWSER_SERVER" || true
  trap - EXIT
}
stage "browser end-to-end tests (headless chromium, one browser for every file)" browser_tests

say "stage times (s):"
for s in "${stages[@]}"; do printf '  %-72s %5s\n' "${s%%|*}" "${s##*|}"; done
say "all tests passed in $((SECONDS - started)) s (after setup)"
