#!/usr/bin/env bash
# Install a released fplint binary: pick the archive for this OS and CPU,
# download it and its SHA-256 file, verify, unpack into DEST/bin.
#
# Usage: install-release.sh VERSION DEST
# Environment:
#   FPLINT_BASE_URL  where releases live (default: the GitHub releases of fplint);
#                    archives are at $FPLINT_BASE_URL/vVERSION/fplint-TARGET.tar.gz
#   FPLINT_OS, FPLINT_ARCH  override detection (GitHub's RUNNER_OS/RUNNER_ARCH
#                    values work: Linux/macOS/Windows, X64/ARM64)
#   FPLINT_LIBC      gnu (default on Linux) or musl
# Exit codes: 0 installed (or already there), 3 no release matches, 1 any other failure.
set -euo pipefail

version=${1:?usage: install-release.sh VERSION DEST}
dest=${2:?usage: install-release.sh VERSION DEST}
version=${version#v}
base=${FPLINT_BASE_URL:-https://github.com/fplint/fplint/releases/download}

os=${FPLINT_OS:-$(uname -s)}
arch=${FPLINT_ARCH:-$(uname -m)}
case "$arch" in
  X64|x86_64|amd64) arch=x86_64 ;;
  ARM64|aarch64|arm64) arch=aarch64 ;;
  *) echo "fplint: no release is built for the CPU '$arch'" >&2; exit 3 ;;
esac
ext=tar.gz
exe=fplint
case "$os" in
  Linux|linux) target="$arch-unknown-linux-${FPLINT_LIBC:-gnu}" ;;
  macOS|Darwin|darwin) target="$arch-apple-darwin" ;;
  Windows|Windows_NT|MINGW*|MSYS*|CYGWIN*)
    [ "$arch" = x86_64 ] || { echo "fplint: no Windows release for '$arch'" >&2; exit 3; }
    target="x86_64-pc-windows-msvc"; ext=zip; exe=fplint.exe ;;
  *) echo "fplint: no release is built for the OS '$os'" >&2; exit 3 ;;
esac

if [ -x "$dest/bin/$exe" ]; then
  echo "fplint $version ($target) already installed in $dest"
  exit 0
fi

archive="fplint-$target.$ext"
url="$base/v$version/$archive"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fetch() {
  # curl's exit code 22 is an HTTP error such as 404: no such release.
  local status=0
  curl --fail --silent --show-error --location --retry 3 --retry-connrefused \
    --connect-timeout 10 --max-time 120 -o "$2" "$1" || status=$?
  if [ "$status" -eq 22 ]; then
    echo "fplint: no release at $1" >&2
    exit 3
  fi
  [ "$status" -eq 0 ] || { echo "fplint: download of $1 failed (curl exit $status)" >&2; exit 1; }
}

echo "fplint: downloading $url"
fetch "$url" "$work/$archive"
fetch "$url.sha256" "$work/$archive.sha256"

want=$(awk '{print $1; exit}' "$work/$archive.sha256" | tr 'A-F' 'a-f')
if command -v sha256sum >/dev/null 2>&1; then
  got=$(sha256sum "$work/$archive" | awk '{print $1}')
else
  got=$(shasum -a 256 "$work/$archive" | awk '{print $1}')
fi
if [ -z "$want" ] || [ "$want" != "$got" ]; then
  echo "fplint: checksum mismatch for $archive: expected '$want', got '$got'; refusing to install" >&2
  exit 1
fi

mkdir -p "$work/unpacked"
case "$ext" in
  tar.gz) tar -xzf "$work/$archive" -C "$work/unpacked" ;;
  zip) unzip -q "$work/$archive" -d "$work/unpacked" ;;
esac
found=$(find "$work/unpacked" -type f -name "$exe" | head -n 1)
[ -n "$found" ] || { echo "fplint: $archive holds no $exe" >&2; exit 1; }
mkdir -p "$dest/bin"
install -m 0755 "$found" "$dest/bin/$exe"
echo "fplint: installed $("$dest/bin/$exe" --version) ($target, sha256 $got) in $dest/bin"
