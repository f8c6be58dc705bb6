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
