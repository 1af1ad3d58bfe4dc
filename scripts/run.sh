#!/usr/bin/env bash
# Installs what is missing, builds the app (release) and serves it on http://127.0.0.1:PORT
# (PORT from $PORT, else the first free port from 8080).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/setup.sh"
cd "$ROOT"
port="${PORT:-8080}"
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
node scripts/build-app.mjs --profile release --dist dist
echo
echo "  Training Lab: http://127.0.0.1:$port/   (Ctrl-C stops it)"
echo
exec node scripts/serve.mjs dist "$port"
