#!/usr/bin/env bash
# The field tables derived from schemas that registry packages carry agree
# with those packages: cfn-lint (CloudFormation registry schemas, also the
# source of the awscc attributes), the Kubernetes Python client (pod spec)
# and the prebuilt CDK bindings of hashicorp/aws v4, v5 and v6 (npm; the
# aws_eks_* arguments). The versions are the ones docs/schemas.md records; to
# refresh, change them here and there, regenerate with
# `cargo run -p xtask -- schema ...`.
set -euo pipefail
cd "$(dirname "$0")/.."

CFN_LINT_VERSION=1.58.0
KUBERNETES_VERSION=37.0.2
# folder=package@version: hashicorp/aws 4.67.0, 5.100.0, 6.66.0
AWS_BINDINGS="aws4=@cdktf/provider-aws@15.0.0 aws5=@cdktf/provider-aws@20.1.0 aws6=@cdktn/provider-aws@25.7.0"

venv="${TMPDIR:-/tmp}/fplint-schema-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  "cfn-lint==$CFN_LINT_VERSION" "kubernetes==$KUBERNETES_VERSION"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# Only the EKS resources of each (large) package are unpacked, once.
bindings="${TMPDIR:-/tmp}/fplint-schema-aws"
terraform_srcs="$site/cfnlint/data/schemas"
for entry in $AWS_BINDINGS; do
  dir="$bindings/${entry%%=*}"
  spec="${entry#*=}"
  if [ ! -f "$dir/.done-$(echo "$spec" | tr '/@' '__')" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    tgz=$(cd "$dir" && npm pack --silent "$spec" | tail -n 1)
    tar xzf "$dir/$tgz" -C "$dir" package/package.json --wildcards 'package/lib/eks-*'
    rm -f "$dir/$tgz"
    touch "$dir/.done-$(echo "$spec" | tr '/@' '__')"
  fi
  terraform_srcs="$terraform_srcs,$dir/package"
done

FPLINT_CFN_LINT_SCHEMAS="$site/cfnlint/data/schemas" \
FPLINT_K8S_MODELS="$site/kubernetes/client/models" \
FPLINT_TERRAFORM_DOCS="$terraform_srcs" \
  cargo test -p xtask --test schema_tables -- cloudformation_agrees kubernetes_agrees terraform_agrees
