#!/usr/bin/env bash
# Sets up and builds gpulint, then runs the whole test suite. Fails when a test fails or when
# no tests were found.
set -euo pipefail

cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}

scripts/setup.sh

echo "test: ctest --test-dir $build_dir"
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j2
