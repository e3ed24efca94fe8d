#!/usr/bin/env bash
# Sets up and builds gpulint, then lints the bundled example training script.
# The example is meant to have findings, so gpulint's exit code 1 counts as success here;
# any other failure is passed on.
set -euo pipefail

cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}

scripts/setup.sh

echo "demo: $build_dir/gpulint examples/train.py"
rc=0
"$build_dir/gpulint" examples/train.py || rc=$?
if [ "$rc" -eq 1 ]; then
  exit 0
fi
exit "$rc"
