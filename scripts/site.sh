#!/usr/bin/env bash
# Writes the whole site (every lab, /labs, the benchmark, the course, its lessons, the tutorial,
# the book and the data sets) as static files for any web host, under a sub-path:
#
#   bash scripts/site.sh --base /courses/ml/lab/ --out site/
#
# then copy site/ to what the host serves at /courses/ml/lab/ (with the Brotli and gzip copies of
# its files, FILE.br and FILE.gz, and Apache's .htaccess: the hosting chapter's recipes send them).
# No rewrite rules are needed: every
# route has its own entry file (optimizers/index.html, …), each with a <base> naming the site's
# root, so that relative URLs (data, lessons, the book, the service worker) and the asset URLs
# scripts/build-app.mjs writes under --public-url all resolve there. No isolation headers are needed either: the
# labs train without them (docs/book/src/instructor/hosting.md says what the headers add).
#
# --profile NAME builds with another cargo profile (the browser tests use `e2e`, which shares
# their build); the default is the release build that scripts/run.sh serves.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="/"
out=""
profile=""
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    *) echo "site.sh: unknown argument '$1' (use --base /path/ --out DIR [--profile NAME])" >&2; exit 2 ;;
  esac
done
if [ -z "$out" ]; then
  echo "site.sh: --out DIR is required" >&2
  exit 2
fi
# The base is an absolute path that ends in a slash: /, /lab/, /courses/ml/lab/.
case "$base" in /*) ;; *) base="/$base" ;; esac
case "$base" in */) ;; *) base="$base/" ;; esac
if ! printf '%s' "$base" | grep -Eq '^/([A-Za-z0-9._~-]+/)*$'; then
  echo "site.sh: --base '$base' is not a URL path (letters, digits, . _ ~ - between slashes)" >&2
  exit 2
fi

# Installs what is missing (a quick check when everything is there).
. "$ROOT/scripts/setup.sh"
cd "$ROOT"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
node scripts/build-app.mjs --profile "${profile:-release}" --public-url "$base" --dist "$out"

# The root's entry file names the base too (harmless there), then one copy per route.
entry="$out/index.html"
sed -i "s|<head>|<head>\n    <base href=\"$base\" />|" "$entry"
routes="$(node -e "
  const labs = JSON.parse(require('fs').readFileSync('state/labs.json', 'utf8')).labs;
  console.log([...labs.map((l) => l.route).filter(Boolean), 'labs', 'author'].join(' '));
")"
for route in $routes; do
  mkdir -p "$out/$route"
  cp "$entry" "$out/$route/index.html"
done
# Apache's recipe travels with the site (a host that reads .htaccess files uses it as it is).
cp "$ROOT/scripts/hosting/htaccess" "$out/.htaccess"
# Brotli and gzip copies of every text file and the wasm, for the hosts that send them
# (docs/book/src/instructor/hosting.md); quick ones for a test build.
quick=""
[ "${profile:-release}" = "release" ] || quick="--quick"
node "$ROOT/scripts/compress.mjs" "$out" $quick
echo "site.sh: wrote the site for $base to $out (routes: / $routes)"
