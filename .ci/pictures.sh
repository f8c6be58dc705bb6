#!/usr/bin/env bash
# The placement pictures render: `fplint placement --format mermaid` through
# mermaid-cli (with Debian's Chromium) and `--format dot` through Graphviz,
# for every example and the picture test projects. Any render error fails.
# Usage: .ci/pictures.sh [path/to/fplint]   (default: builds target/release/fplint)
# PICTURES_PNG=FILE also writes the README picture (docs/placement.png) there.
set -euo pipefail
cd "$(dirname "$0")/.."

fplint=${1:-}
if [ -z "$fplint" ]; then
  cargo build --release --locked --bin fplint
  fplint=target/release/fplint
fi

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else echo "need root (or sudo) to install: $*" >&2; return 1
  fi
}
chromium_bin() { command -v chromium || command -v chromium-browser || true; }
missing=()
[ -n "$(chromium_bin)" ] || missing+=(chromium)
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
if [ "${#missing[@]}" -gt 0 ]; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" fonts-dejavu-core >/dev/null
fi
chrome=$(chromium_bin)
export PUPPETEER_EXECUTABLE_PATH="$chrome"

# mermaid-cli in a cache folder kept between runs; never a browser download.
mmdc_version=11.9.0  # 12.x needs node 22; Debian 12 and this machine have node 20
cache=${XDG_CACHE_HOME:-$HOME/.cache}/fplint-ci/mermaid-cli-$mmdc_version
if [ ! -x "$cache/node_modules/.bin/mmdc" ]; then
  mkdir -p "$cache"
  PUPPETEER_SKIP_DOWNLOAD=1 npm install --silent --no-audit --no-fund --prefix "$cache" \
    "@mermaid-js/mermaid-cli@$mmdc_version" >/dev/null
fi
mmdc="$cache/node_modules/.bin/mmdc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Chromium refuses to run as root inside its sandbox.
cat >"$tmp/puppeteer.json" <<EOF
{"executablePath": "$chrome", "args": ["--no-sandbox", "--disable-setuid-sandbox"]}
EOF

render() { # name, paths...
  local name=$1
  shift
  "$fplint" placement --no-config --format mermaid "$@" >"$tmp/$name.mmd"
  "$fplint" placement --no-config --format dot "$@" >"$tmp/$name.dot"
  if ! "$mmdc" --quiet --puppeteerConfigFile "$tmp/puppeteer.json" \
    --input "$tmp/$name.mmd" --output "$tmp/$name.svg" >"$tmp/$name.mmdc.log" 2>&1; then
    cat "$tmp/$name.mmdc.log"; echo "mermaid failed to render $name"; exit 1
  fi
  # mmdc draws a syntax error as a picture of the error instead of failing.
  if grep -q -i 'syntax error' "$tmp/$name.svg"; then
    echo "mermaid drew a syntax error for $name"; exit 1
  fi
  if ! dot -Tsvg "$tmp/$name.dot" -o "$tmp/$name.dot.svg" 2>"$tmp/$name.dot.log" || [ -s "$tmp/$name.dot.log" ]; then
    cat "$tmp/$name.dot.log"; echo "graphviz failed to render $name"; exit 1
  fi
  echo "rendered $name: mermaid $(wc -c <"$tmp/$name.svg") bytes, dot $(wc -c <"$tmp/$name.dot.svg") bytes"
}

shopt -s nullglob
render examples examples
for d in examples/*/*/; do
  render "examples-$(basename "$(dirname "$d")")-$(basename "$d")" "$d"
done
for d in tests/pictures/*/; do
  render "pictures-$(basename "$d")" "$d"
done

if [ -n "${PICTURES_PNG:-}" ]; then
  "$fplint" placement --no-config --format mermaid examples/eksctl/fixed >"$tmp/readme.mmd"
  "$mmdc" --quiet --puppeteerConfigFile "$tmp/puppeteer.json" --backgroundColor white \
    --scale 1 --input "$tmp/readme.mmd" --output "$PICTURES_PNG"
  echo "wrote $PICTURES_PNG ($(wc -c <"$PICTURES_PNG") bytes)"
fi
