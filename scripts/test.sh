#!/usr/bin/env bash
# Sets up and builds gpulint, then runs the whole test suite. Fails when a test fails or when
# no tests were found.
set -euo pipefail

cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}

scripts/setup.sh all

echo "test: ctest --test-dir $build_dir"
# A hung test fails after five minutes instead of holding the run until CI gives up.
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error --timeout 300 -j2
