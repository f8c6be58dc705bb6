#!/usr/bin/env bash
# SARIF that GitHub code scanning accepts, in the cases that matter: findings
# on relative and absolute paths (file:// URIs), an unreadable path
# (executionSuccessful false), and run-level notices (skipped and not-linted
# named files, workloads without a cluster). Each log is validated against
# the SARIF 2.1.0 JSON schema and by Microsoft's validator with GitHub rules
# (`sarif-multitool validate --rule-kind "Gh;Sarif"`).
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

schema=${SARIF_SCHEMA:-../shared/spec/sarif-schema-2.1.0.json}

cargo build --release --locked --bin fplint
bin="$PWD/target/release/fplint"

# fplint exits 0, 1 or 2 here by design; anything else is a failure.
run() {
  local out=$1
  shift
  local rc=0
  "$@" >"$out" || rc=$?
  if [ "$rc" -gt 2 ]; then
    echo "fplint exited $rc: $*" >&2
    exit 1
  fi
}

run "$work/relative.sarif" "$bin" check --no-config --format sarif examples
run "$work/absolute.sarif" "$bin" check --no-config --format sarif "$PWD/examples/eksctl/problem/cluster.yaml"
run "$work/unreadable.sarif" "$bin" check --no-config --format sarif examples/eksctl/problem/cluster.yaml does-not-exist.yaml

proj="$work/project"
mkdir -p "$proj/.git" "$proj/chart/templates" "$proj/empty" "$proj/prod" "$proj/staging" "$proj/shared"
printf 'apiVersion: eksctl.io/v1alpha5\nkind: Clusterconfig\nmetadata: {name: x}\n' >"$proj/near.yaml"
printf 'name: ci\non: push\n' >"$proj/ci.yaml"
printf 'metadata:\n  name: {{ .Values.name }}\n' >"$proj/chart/templates/svc.yaml"
for env in prod staging; do
  printf 'apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: %s}\nfargateProfiles:\n  - name: all\n    selectors: [{namespace: kube-system}]\n' "$env" >"$proj/$env/cluster.yaml"
done
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: web}\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: nginx}]\n' >"$proj/shared/web.yaml"
(cd "$proj" && run "$work/notices.sarif" "$bin" check --format sarif near.yaml ci.yaml chart/templates/svc.yaml empty .)

# A baseline: findings it holds (unchanged), one it no longer matches (an
# FP100 at the entry), and one that is new.
bl="$work/baseline"
mkdir -p "$bl/.git"
cp -r examples "$bl/"
(cd "$bl" && "$bin" check --no-config --write-baseline accepted.json examples 2>/dev/null)
cp "$bl/examples/eksctl/fixed/cluster.yaml" "$bl/examples/eksctl/problem/cluster.yaml"
cp examples/eksctl/problem/cluster.yaml "$bl/examples/eksctl/new.yaml"
(cd "$bl" && run "$work/baseline.sarif" "$bin" check --no-config --format sarif --baseline accepted.json examples)

python3 - "$work/unreadable.sarif" "$work/absolute.sarif" "$work/notices.sarif" "$work/baseline.sarif" <<'PY'
import json, sys
unreadable, absolute, notices, baseline = (json.load(open(p)) for p in sys.argv[1:])
states = {(r["ruleId"], r["baselineState"]) for r in baseline["runs"][0]["results"]}
assert ("FP100", "new") in states and any(s == "unchanged" for _, s in states), states
assert any(c != "FP100" and s == "new" for c, s in states), states
assert all("fplintFingerprint/v1" in r["partialFingerprints"] for r in baseline["runs"][0]["results"])
inv = unreadable["runs"][0]["invocations"][0]
assert inv["executionSuccessful"] is False, inv
assert inv["toolExecutionNotifications"][0]["level"] == "error", inv
uri = absolute["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
assert uri.startswith("file:///"), uri
ids = {n["descriptor"]["id"] for n in notices["runs"][0]["invocations"][0]["toolExecutionNotifications"]}
assert {"not-linted", "skipped", "nothing-to-lint", "unassigned-workloads"} <= ids, ids
print("sarif: executionSuccessful, file:// URIs and notifications as expected")
PY

# JSON schema.
if [ -f "$schema" ]; then
  py=python3
  if ! python3 -c 'import jsonschema' 2>/dev/null; then
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install --quiet jsonschema
    py="$work/venv/bin/python"
  fi
  "$py" - "$schema" "$work"/*.sarif <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft7Validator(schema)
bad = 0
for path in sys.argv[2:]:
    errors = list(validator.iter_errors(json.load(open(path))))
    for e in errors[:10]:
        print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    bad += len(errors)
    print(f"schema: {path.rsplit('/', 1)[-1]}: {len(errors)} errors")
sys.exit(1 if bad else 0)
PY
else
  echo "schema: $schema not found (set SARIF_SCHEMA); skipped" >&2
fi

# Microsoft's validator with GitHub's rules.
npm install --prefix "$work/npm" --no-audit --no-fund --silent @microsoft/sarif-multitool >/dev/null
multitool=$(find "$work/npm/node_modules/@microsoft" -maxdepth 2 -type f -name Sarif.Multitool | head -n 1)
if [ -z "$multitool" ]; then
  echo "sarif-multitool: no binary for this platform" >&2
  exit 1
fi
validate() {
  local log=$1 out=$2
  rm -f "$out"
  "$multitool" validate --rule-kind "Gh;Sarif" --level "Error;Warning" --output "$out" "$log" >/dev/null
  python3 -c '
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
found = [r for r in run.get("results", []) if r.get("level", "warning") in ("error", "warning")]
for r in found:
    print("  %s %s: %s" % (r.get("ruleId"), r.get("level", "warning"), json.dumps(r.get("message"))))
print(len(found))
' "$out" | tail -n 1
}
# The validator must catch a known-bad log first, or its silence means nothing.
# (A region with no start, a tool with no version: an error and warnings.)
printf '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"A","message":{"text":"a"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"x.yaml"},"region":{"startColumn":1}}}]}]}]}' >"$work/known-bad.json"
if [ "$(validate "$work/known-bad.json" "$work/known-bad.out")" = "0" ]; then
  echo "sarif-multitool: reports nothing on a known-bad log: the validator did not run" >&2
  exit 1
else
  failed=0
  for f in "$work"/*.sarif; do
    n=$(validate "$f" "$f.out")
    echo "sarif-multitool: ${f##*/}: $n problems"
    [ "$n" = "0" ] || failed=1
  done
  exit "$failed"
fi
