#!/usr/bin/env bash
# Benchmarks the lab against jax-js 0.1, TensorFlow.js 4.22 and ConvNetJS 0.3 on W1 and W2, and
# against jax-js on T1 (the attention lab's transformer), in headless Chromium, side by side in
# one session (README, "Benchmarks"). Not part of the tests: it installs the peers from npm into
# bench/peers/node_modules on first use.
#   bash scripts/compare-peers.sh [steps] [W1,W2,T1]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
if [ ! -d bench/peers/node_modules/@tensorflow/tfjs ] || [ ! -d bench/peers/node_modules/@jax-js/jax ]; then
  (cd bench/peers && npm install --no-audit --no-fund --loglevel=error)
fi
node scripts/build-app.mjs --profile release --dist dist
cargo build --release -p lab_cli --bin lab
node bench/compare.mjs "$@"
