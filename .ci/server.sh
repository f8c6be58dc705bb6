#!/usr/bin/env bash
# `fplint server` end to end: the real binary over stdio, driven by
# pytest-lsp (a real LSP client library) from a venv.
set -euo pipefail
cd "$(dirname "$0")/.."

# A no-op when the binary is up to date; never tests a stale one.
cargo build --release --locked --bin fplint

venv=${FPLINT_LSP_VENV:-target/lsp-venv}
if [ ! -x "$venv/bin/pytest" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "pytest-lsp==1.0.1"
fi

FPLINT_BIN="$PWD/target/release/fplint" "$venv/bin/pytest" -q -c tests/lsp/pytest.ini tests/lsp

# A short day of random edits, saves, new and deleted files and config
# changes on a generated tree: the server stays up and ends where a fresh
# `fplint check` is. The full 10,000-operation run is in docs/benchmarks.md.
soak=$(mktemp -d)
trap 'rm -rf "$soak"' EXIT
cargo run --release --locked --quiet -p xtask -- gen-monorepo --out "$soak/tree" --mb 2 >/dev/null
git -C "$soak/tree" init --quiet
python3 tests/lsp/soak.py target/release/fplint "$soak/tree" --edits 300 --seed 7 --debounce 0 --state-only
