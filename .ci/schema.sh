#!/usr/bin/env bash
# The field tables derived from schemas that registry packages carry agree
# with those packages: cfn-lint (CloudFormation registry schemas, also the
# source of the awscc attributes) and the Kubernetes Python client (pod spec).
# The versions are the ones docs/schemas.md records; to refresh, change them
# here and there, regenerate with `cargo run -p xtask -- schema ...`.
set -euo pipefail
cd "$(dirname "$0")/.."

CFN_LINT_VERSION=1.58.0
KUBERNETES_VERSION=37.0.2

venv="${TMPDIR:-/tmp}/fplint-schema-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  "cfn-lint==$CFN_LINT_VERSION" "kubernetes==$KUBERNETES_VERSION"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

FPLINT_CFN_LINT_SCHEMAS="$site/cfnlint/data/schemas" \
FPLINT_K8S_MODELS="$site/kubernetes/client/models" \
  cargo test -p xtask --test schema_tables -- cloudformation_agrees kubernetes_agrees
