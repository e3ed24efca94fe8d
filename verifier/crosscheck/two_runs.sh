#!/bin/sh
# The verifier and the cross-checks, twice back to back, and the two-run check:
# two_runs.sh VERIFIER OUT_DIR [GPULINT]   ->   OUT_DIR/two_runs.md
# VERIFIER is a built gpulint-verifier; GPULINT (default: gpulint on PATH) gives the rules.
set -eu
here=$(dirname "$0")
verifier=$1
out=$2
gpulint=${3:-gpulint}
for run in 1 2; do
  mkdir -p "$out/run$run"
  "$verifier" --output "$out/run$run/verifier.json"
  sh "$here/run_all.sh" "$out/run$run/verifier.json" "$out/run$run" "$gpulint" \
    >"$out/run$run/compare.md"
done
python3 "$here/two_runs.py" "$out/run1/rules.json" "$out/run1" "$out/run2" >"$out/two_runs.md"
