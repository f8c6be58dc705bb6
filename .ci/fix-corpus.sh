#!/usr/bin/env bash
# `--fix --unsafe-fixes` on a copy of the shared corpus changes only the
# files that have fixable findings, and each changed file still parses.
# Usage: .ci/fix-corpus.sh PATH/TO/fplint
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/fplint}")
corpus=../shared/corpus/files
[ -d "$corpus" ] || { echo "no shared corpus; skipped"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$corpus" "$tmp/before"
cp -r "$corpus" "$tmp/files"
# Findings exit 1: the report is what matters here.
(cd "$tmp/files" && { "$bin" check --no-config --format json . >"$tmp/before.json" || true; })
status=0
(cd "$tmp/files" && "$bin" check --no-config --fix --unsafe-fixes --show-fixes --format json . >"$tmp/after.json" 2>"$tmp/fix.log") || status=$?
[ "$status" -le 2 ] || { cat "$tmp/fix.log"; echo "fplint --fix exited $status"; exit 1; }
python3 - "$tmp" <<'PY'
import filecmp, json, os, sys
tmp = sys.argv[1]
before = json.load(open(os.path.join(tmp, "before.json")))
after = json.load(open(os.path.join(tmp, "after.json")))
fixable = {d["file"].removeprefix("./") for d in before["diagnostics"] if d.get("fix")}
for d in before["diagnostics"]:
    for e in (d.get("fix") or {}).get("edits", []):
        fixable.add(e["file"].removeprefix("./"))
changed = []
for root, _, names in os.walk(os.path.join(tmp, "files")):
    for n in names:
        p = os.path.join(root, n)
        rel = os.path.relpath(p, os.path.join(tmp, "files"))
        if not filecmp.cmp(p, os.path.join(tmp, "before", rel), shallow=False):
            changed.append(rel)
problems = [f"{f}: changed without a fixable finding" for f in changed if f not in fixable]
errs_before = {d["file"] for d in before["diagnostics"] if d["code"] == "FP000"}
errs_after = {d["file"] for d in after["diagnostics"] if d["code"] == "FP000"}
problems += [f"{f}: no longer parses after --fix" for f in sorted(errs_after - errs_before)]
left = [d for d in after["diagnostics"] if d.get("fix")]
problems += [f"{d['file']}:{d['line']}: {d['code']} still fixable after --fix" for d in left]
print(open(os.path.join(tmp, "fix.log")).read(), end="")
print(f"--fix on the corpus: {len(fixable)} files with fixes, {len(changed)} changed: {sorted(changed)}")
for p in problems:
    print("PROBLEM:", p)
sys.exit(1 if problems else 0)
PY
