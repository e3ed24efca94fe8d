#!/bin/sh
# Runs every cross-check script and the comparison: run_all.sh VERIFIER_JSON OUT_DIR [GPULINT]
# GPULINT (default: gpulint on PATH) gives the rules' cost figures (`gpulint rules --format json`).
set -eu
here=$(dirname "$0")
verifier_json=$1
out=$2
gpulint=${3:-gpulint}
mkdir -p "$out"
"$gpulint" rules --format json >"$out/rules.json"
for e in sync dynamic loading transfer placement precision debug; do
  PYTHONUNBUFFERED=1 python3 "$here/$e.py" >"$out/torch-$e.json" 2>"$out/torch-$e.log" ||
    echo "crosscheck $e failed (see $out/torch-$e.log)" >&2
done
python3 "$here/compare.py" "$out/rules.json" "$verifier_json" "$out"/torch-*.json
