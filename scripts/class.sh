#!/usr/bin/env bash
# Starts the class server (optional; see the book's instructor chapter "A class server"):
#   bash scripts/class.sh instructor ada    (a secret for Ada, and the line for instructors.txt)
#   bash scripts/class.sh --db class.sqlite --port 8090 --origin https://labs.example.edu --instructors instructors.txt
# Any flag of `lab-class --help` passes through. Only cargo is needed (no browser, no data).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/training-lab/target}"
cd "$ROOT"
exec cargo run -q --release -p lab_class --bin lab-class -- "$@"
