#!/usr/bin/env bash
# fplint's reading of CDK programs as source against the real `cdk synth`
# (pinned aws-cdk-lib, aws-cdk, typescript from npm and aws-cdk-lib from
# PyPI, installed by the script into a cache folder): every hand-written app
# under tests/programs/cdk must read the same from its source as from its
# cdk.out, apart from the gaps tests/programs/cdk/known-gaps.tsv lists.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/cdk-oracle "${1:-target/release/fplint}"
