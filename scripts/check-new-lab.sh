#!/usr/bin/env bash
# A new lab is its folders and its registry entry: `lab new-lab` writes one into a copy of the
# tree, then this checks that it touched at most ten files, that every crate that lists labs
# builds with it (the app for wasm32 too, lints included), that its simulation's test passes, and
# that the registry's checks (its chapter, its hideable names, the metrics it publishes, its
# settings' round trips) hold for it. Run by scripts/test.sh; needs LAB_BIN (the `lab` binary).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
: "${LAB_BIN:?set LAB_BIN to the lab binary}"
: "${CARGO_TARGET_DIR:?source scripts/setup.sh first}"
NAME="${1:-demo}"
MOST=10

# The copy keeps the files' times, so cargo reuses what it built for the copy in an earlier run
# (the crates that list labs rebuild: the new lab changes their lists).
copy="$CARGO_TARGET_DIR/new-lab-check/tree"
rm -rf "$copy"
mkdir -p "$copy"
(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 cp -p --parents -t "$copy")
stamp="$CARGO_TARGET_DIR/new-lab-check/stamp"
touch "$stamp"
sleep 1

"$LAB_BIN" new-lab "$NAME" --root "$copy" --title "Demo"

touched="$(cd "$copy" && find . -type f -newer "$stamp" | sort)"
count="$(printf '%s\n' "$touched" | grep -c .)"
echo "check-new-lab: lab new-lab $NAME touched $count files:"
printf '  %s\n' $touched
if [ "$count" -gt "$MOST" ]; then
  echo "check-new-lab: a new lab must touch at most $MOST files, not $count" >&2
  exit 1
fi

cd "$copy"
# The tests here prove the lab is wired in, not fast: the copy's own crates are built without
# optimization (its engine too, once: the copy is a different package to cargo), which halves
# their build; the registry's crates are shared with the main build.
unoptimized=()
for crate in engine lab_sims lab_state; do
  unoptimized+=(--config "profile.dev.package.$crate.opt-level=0")
done
# clippy compiles the copy's own crates (as in scripts/test.sh), so the tests' builds are linted.
export RUSTC_WORKSPACE_WRAPPER="${RUSTC_WORKSPACE_WRAPPER:-$(command -v clippy-driver)}"
export CLIPPY_ARGS="${LAB_CLIPPY_ARGS:?source scripts/setup.sh first}"
cargo clippy -q -p app --target wasm32-unknown-unknown -- -D warnings
cargo test -q "${unoptimized[@]}" -p lab_sims --lib "$NAME::"
# The registry's checks, the only modules compiled into the copy's state test binary
# (state/build.rs reads LAB_STATE_TESTS): the lessons' science, most of that binary, is the main
# build's to run.
registry_checks=(registry settings_tables lab_states)
LAB_STATE_TESTS="$(IFS=,; echo "${registry_checks[*]}")" \
  cargo test -q "${unoptimized[@]}" -p lab_state --test state -- "${registry_checks[@]/%/::}"
echo "check-new-lab: the lab '$NAME' builds, passes its tests and shows up in the registry's checks"
