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
mkdir -p "$tmp/out"
# Chromium refuses to run as root inside its sandbox.
cat >"$tmp/puppeteer.json" <<EOF
{"executablePath": "$chrome", "args": ["--no-sandbox", "--disable-setuid-sandbox"]}
EOF

# Every diagram goes into one Markdown file: mmdc renders all its mermaid
# blocks with one browser start instead of one each.
render() { # name, paths...
  local name=$1
  shift
  "$fplint" placement --no-config --format mermaid "$@" >"$tmp/$name.mmd"
  "$fplint" placement --no-config --format dot "$@" >"$tmp/$name.dot"
  {
    printf '## %s\n\n```mermaid\n' "$name"
    cat "$tmp/$name.mmd"
    printf '```\n\n'
  } >>"$tmp/all.md"
  if ! dot -Tsvg "$tmp/$name.dot" -o "$tmp/$name.dot.svg" 2>"$tmp/$name.dot.log" || [ -s "$tmp/$name.dot.log" ]; then
    cat "$tmp/$name.dot.log"; echo "graphviz failed to render $name"; exit 1
  fi
  echo "$name: dot drew $(wc -c <"$tmp/$name.dot.svg") bytes of SVG"
  names+=("$name")
}
names=()

shopt -s nullglob
render examples examples
for d in examples/*/*/; do
  render "examples-$(basename "$(dirname "$d")")-$(basename "$d")" "$d"
done
for d in tests/pictures/*/; do
  render "pictures-$(basename "$d")" "$d"
done

echo "--- the Action's summary step: a table per rule linked to the lines, and a diagram that renders"
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check pyyaml
"$tmp/venv/bin/python" - action.yml "$tmp/summary-step.sh" <<'PY'
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["runs"]["steps"]
step = next(s for s in steps if s.get("id") == "summary")
assert "inputs.summary == 'true'" in step["if"], step["if"]
open(sys.argv[2], "w").write(step["run"])
PY
if command -v shellcheck >/dev/null 2>&1; then shellcheck -s bash "$tmp/summary-step.sh"; fi
proj="$tmp/my project"
mkdir -p "$proj/clusters dir"
cp examples/eksctl/problem/cluster.yaml "$proj/clusters dir/"
bindir=$(cd "$(dirname "$fplint")" && pwd)
(cd "$proj" && env PATH="$bindir:$PATH" GITHUB_STEP_SUMMARY="$tmp/summary.md" \
  GITHUB_SERVER_URL=https://github.com GITHUB_REPOSITORY=acme/infra GITHUB_SHA=0123abc \
  GITHUB_WORKSPACE="$proj" FPLINT_PATHS="clusters dir" FPLINT_ARGS="--no-config" \
  bash -e "$tmp/summary-step.sh") || { echo "the summary step failed"; exit 1; }
grep -q '^### FP001 coredns-selector-labels$' "$tmp/summary.md" || { cat "$tmp/summary.md"; exit 1; }
grep -qF '(https://github.com/acme/infra/blob/0123abc/clusters%20dir/cluster.yaml#L37)' "$tmp/summary.md" \
  || { cat "$tmp/summary.md"; echo "no link to the finding's line"; exit 1; }
grep -q '^```mermaid$' "$tmp/summary.md" || { cat "$tmp/summary.md"; echo "no mermaid block"; exit 1; }
cat "$tmp/summary.md" >>"$tmp/all.md"
names+=(summary)
echo "summary step: FP001 linked to its line in a path with a space"

echo "--- mermaid-cli renders every diagram"
if ! "$mmdc" --quiet --puppeteerConfigFile "$tmp/puppeteer.json" \
  --input "$tmp/all.md" --output "$tmp/out/all.md" >"$tmp/mmdc.log" 2>&1; then
  cat "$tmp/mmdc.log"; echo "mermaid failed to render a diagram"; exit 1
fi
svgs=("$tmp"/out/all-*.svg)
[ "${#svgs[@]}" -eq "${#names[@]}" ] || { echo "expected ${#names[@]} pictures, mmdc drew ${#svgs[@]}"; exit 1; }
for i in "${!names[@]}"; do
  svg="$tmp/out/all-$((i + 1)).svg"
  # mmdc draws a syntax error as a picture of the error instead of failing.
  if grep -q -i 'syntax error' "$svg"; then echo "mermaid drew a syntax error for ${names[$i]}"; exit 1; fi
  echo "${names[$i]}: mermaid drew $(wc -c <"$svg") bytes of SVG"
done

if [ -n "${PICTURES_PNG:-}" ]; then
  "$fplint" placement --no-config --format mermaid examples/eksctl/fixed >"$tmp/readme.mmd"
  "$mmdc" --quiet --puppeteerConfigFile "$tmp/puppeteer.json" --backgroundColor white \
    --scale 2 --input "$tmp/readme.mmd" --output "$PICTURES_PNG"
  echo "wrote $PICTURES_PNG ($(wc -c <"$PICTURES_PNG") bytes)"
fi
