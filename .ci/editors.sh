#!/usr/bin/env bash
# Editor set-ups for `fplint server`: the VS Code extension type-checks, passes
# its unit tests (one sends its settings to the real server) and packs into a .vsix; headless Neovim and Emacs, with the
# configurations docs/editors.md shows, open the examples and must report
# fplint's findings (eksctl, Terraform and CloudFormation in Neovim; eksctl
# in Emacs, as Debian has no Terraform mode for it); Helix's languages.toml
# parses. Debian's neovim, emacs-nox, elpa-eglot and elpa-yaml-mode are
# installed when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "need root to run: $*"; return 1
  fi
}
missing=()
for pkg in neovim emacs-nox elpa-eglot elpa-yaml-mode; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "--- apt-get install ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "--- fplint on PATH"
cargo build --release --locked --bin fplint --quiet
export PATH="$PWD/target/release:$PATH"
fplint --version

echo "--- VS Code extension: npm ci, unit tests (its settings against fplint server), vsce package"
(
  cd editors/vscode
  npm ci --no-audit --no-fund --loglevel=error
  FPLINT_BIN="$(command -v fplint)" npm test --silent >"$tmp/vscode-test.log" 2>&1 || { cat "$tmp/vscode-test.log"; exit 1; }
  # The server test is skipped without FPLINT_BIN; here it must have run.
  grep -q '^ok .* fplint server follows the settings the extension sends$' "$tmp/vscode-test.log" \
    || { cat "$tmp/vscode-test.log"; echo "the settings test did not run"; exit 1; }
  grep -E '^# (pass|fail|skipped)' "$tmp/vscode-test.log"
  npx --no-install vsce package --out "$tmp/fplint.vsix" 2>&1 | grep -E 'DONE|ERROR' || true
  [ -s "$tmp/fplint.vsix" ] || { echo "no .vsix was made"; exit 1; }
  listing=$(python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$tmp/fplint.vsix")
  for f in extension/package.json extension/out/extension.js extension/out/command.js extension/out/settings.js \
           extension/node_modules/vscode-languageclient/package.json extension/readme.md; do
    grep -qx "$f" <<<"$listing" || { echo "$f is missing from the .vsix"; exit 1; }
  done
  if grep -q '^extension/out/test/\|^extension/src/' <<<"$listing"; then
    echo "tests or sources were packed into the .vsix"; exit 1
  fi
  echo "packed $(du -k "$tmp/fplint.vsix" | cut -f1) KiB, $(wc -l <<<"$listing") files"
)

# The examples open as a repository of their own, as a user's project
# would: the server models the whole project its root marks, and this
# repository's test fixtures (Karpenter for clusters fplint cannot tell,
# among others) are no part of the examples' clusters.
repo=$PWD
proj="$tmp/examples-project"
mkdir -p "$proj/.git"
cp -r examples "$proj/"

echo "--- Neovim ($(nvim --version | head -n 1)), editors/nvim/init.lua"
# One file per format the set-up covers, with a code fplint reports there.
for check in examples/eksctl/problem/cluster.yaml:FP001 \
             examples/terraform/karpenter-on-fargate/main.tf:FP002 \
             examples/cloudformation/fargate-race.yaml:FP003; do
  file=${check%:*} code=${check##*:}
  if ! (cd "$proj" && FPLINT_EXPECT=$code timeout 120 nvim --headless -u "$repo/editors/nvim/init.lua" \
      -c "luafile $repo/editors/nvim/check.lua" "$file"); then
    echo "Neovim did not report $code in $file"; exit 1
  fi
done

echo "--- Emacs ($(emacs --version | head -n 1)) with Eglot, editors/emacs/fplint.el"
if ! (cd "$proj" && timeout 120 emacs --batch -l "$repo/editors/emacs/fplint.el" -l "$repo/editors/emacs/check.el" \
    examples/eksctl/problem/cluster.yaml 2>"$tmp/emacs.log"); then
  cat "$tmp/emacs.log"; echo "Emacs did not report FP001"; exit 1
fi

echo "--- Helix: editors/helix/languages.toml parses (Debian 12 has no Helix to run)"
python3 -c 'import sys, tomllib; c = tomllib.load(open(sys.argv[1], "rb")); assert c["language-server"]["fplint"] == {"command": "fplint", "args": ["server"]}, c' editors/helix/languages.toml

echo "editors: all checks passed in $(( $(date +%s) - start )) s"
