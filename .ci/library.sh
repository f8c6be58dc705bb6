#!/usr/bin/env bash
# The library's publishing checks: documentation coverage of every public
# item, rustdoc without warnings, the declared rust-version against every
# dependency's, a thin binary package, and a package dry run of each crate.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "documentation coverage (at least 90% per library crate)"
for crate in fplint-core fplint-rules fplint; do
  RUSTC_BOOTSTRAP=1 cargo rustdoc --quiet -p "$crate" -- \
    -Z unstable-options --show-coverage --output-format json >"target/coverage-$crate.json"
  python3 - "$crate" "target/coverage-$crate.json" <<'PY'
import json, sys
crate, path = sys.argv[1:3]
files = json.load(open(path))
total = sum(f["total"] for f in files.values())
documented = sum(f["with_docs"] for f in files.values())
pct = 100.0 * documented / max(total, 1)
print(f"{crate}: {documented}/{total} public items documented ({pct:.1f}%)")
if pct < 90.0:
    worst = sorted(files.items(), key=lambda kv: kv[1]["with_docs"] - kv[1]["total"])[:5]
    for name, f in worst:
        print(f"  {name}: {f['with_docs']}/{f['total']}")
    sys.exit(f"{crate}: documentation coverage {pct:.1f}% is under 90%")
PY
done

step "cargo doc without warnings"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet

step "rust-version is the true minimum"
python3 scripts/check-rust-version

step "the binary package is thin"
lines=$(cat crates/cli/src/*.rs | wc -l)
echo "crates/cli: $lines lines"
if [ "$lines" -ge 500 ]; then
  echo "the binary package has $lines lines; keep it under 500 (move logic into the library)"
  exit 1
fi
cargo metadata --format-version 1 --no-deps --locked | python3 -c '
import json, sys
meta = json.load(sys.stdin)
cli = next(p for p in meta["packages"] if p["name"] == "fplint-cli")
deps = sorted(d["name"] for d in cli["dependencies"] if d["kind"] is None)
extra = [d for d in deps if d not in ("fplint", "fplint-server", "clap", "clap_complete")]
print("fplint-cli depends on", ", ".join(deps))
if extra:
    sys.exit(f"fplint-cli depends on {extra}: reach them through the fplint library")
'

step "package dry run of every crate, in dependency order"
# --workspace packages the crates together, so each verifies against its
# siblings' packages before any of them is on crates.io. Those packages act
# as registry crates, which cargo never rebuilds for changed sources: an
# unpacked copy (registry/src/-<hash of this path>/) or a compiled one
# (target/debug) left by an earlier run of the same version would be verified
# instead of this commit's. Remove both.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
for name in $(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["packages"]))'); do
  rm -rf "$cargo_home"/registry/src/-*/"$name"-[0-9]*
  rm -rf target/debug/.fingerprint/"$name"-* target/debug/build/"$name"-*
  rm -f target/debug/deps/lib"${name//-/_}"-* target/debug/deps/"${name//-/_}"-*
done
cargo publish --workspace --dry-run --locked
