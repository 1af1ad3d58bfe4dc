#!/usr/bin/env bash
# Installs what is missing, then runs every test: formatting, the engine's unit tests, its GPU
# tests on Mesa's lavapipe (software Vulkan), and the browser end-to-end tests in headless Chromium.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/setup.sh"
cd "$ROOT"
started=$SECONDS

say "cargo fmt --check, cargo clippy"
cargo fmt --all --check
cargo clippy -q -p engine -p lab_state -p plot_text --all-targets -- -D warnings
cargo clippy -q -p app --target wasm32-unknown-unknown -- -D warnings

say "engine, state and display tests (unit, GPU kernels vs CPU twins on lavapipe, data files)"
cargo test -p engine -p lab_state -p plot_text

say "building the app (trunk, release)"
trunk build --release

say "browser end-to-end tests (headless chromium)"
node --test --test-concurrency=1 e2e/

say "all tests passed in $((SECONDS - started)) s (after setup)"
