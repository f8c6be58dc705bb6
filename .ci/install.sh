#!/usr/bin/env bash
# The Action's install script against a release laid out in a temporary
# folder and served on loopback: it installs in seconds, refuses a bad
# checksum, and says "no release" (exit 3) when none matches.
# Usage: .ci/install.sh PATH/TO/fplint
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/fplint}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
tmp=$(mktemp -d)
server_pid=
cleanup() { [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

target="$(uname -m)-unknown-linux-gnu"
rel="$tmp/www/v$version"
mkdir -p "$rel" "$tmp/stage/fplint-$target"
cp "$bin" "$tmp/stage/fplint-$target/fplint"
cp LICENSE README.md "$tmp/stage/fplint-$target/"
tar -czf "$rel/fplint-$target.tar.gz" -C "$tmp/stage" "fplint-$target"
(cd "$rel" && sha256sum "fplint-$target.tar.gz" > "fplint-$target.tar.gz.sha256")

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$tmp/www" >"$tmp/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 50); do
  curl --silent --fail -o /dev/null "http://127.0.0.1:$port/v$version/fplint-$target.tar.gz.sha256" && break
  sleep 0.1
done
export FPLINT_BASE_URL="http://127.0.0.1:$port" FPLINT_OS=Linux FPLINT_ARCH=X64
[ "$(uname -m)" = x86_64 ] || FPLINT_ARCH=ARM64

start=$(date +%s%N)
scripts/install-release.sh "$version" "$tmp/good"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
"$tmp/good/bin/fplint" --version
"$tmp/good/bin/fplint" check --no-config examples/eksctl/fixed
echo "installed from the local release in ${ms} ms"
[ "$ms" -lt 5000 ] || { echo "install took ${ms} ms, over 5 s"; exit 1; }

# A second run finds the binary in place (what the Action's cache restores).
scripts/install-release.sh "$version" "$tmp/good" | grep -q "already installed"

# A tampered archive must be refused and leave nothing installed.
echo "0000000000000000000000000000000000000000000000000000000000000000  fplint-$target.tar.gz" > "$rel/fplint-$target.tar.gz.sha256"
if scripts/install-release.sh "$version" "$tmp/bad" 2>"$tmp/bad.log"; then
  echo "a bad checksum was accepted"; exit 1
fi
grep -q "checksum mismatch" "$tmp/bad.log" || { cat "$tmp/bad.log"; exit 1; }
[ ! -e "$tmp/bad/bin/fplint" ] || { echo "a binary was installed despite the bad checksum"; exit 1; }
echo "bad checksum refused: $(cat "$tmp/bad.log")"

# No release for that version: exit 3, which the Action turns into a source build.
status=0
scripts/install-release.sh 0.0.0-none "$tmp/none" 2>"$tmp/none.log" || status=$?
[ "$status" -eq 3 ] || { cat "$tmp/none.log"; echo "expected exit 3 for a missing release, got $status"; exit 1; }
echo "missing release: exit 3 ($(cat "$tmp/none.log"))"
