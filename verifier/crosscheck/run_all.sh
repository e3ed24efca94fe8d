#!/bin/sh
# Runs every cross-check script and the comparison: run_all.sh VERIFIER_JSON OUT_DIR
set -eu
here=$(dirname "$0")
verifier_json=$1
out=$2
mkdir -p "$out"
for e in sync dynamic loading transfer placement precision debug; do
  PYTHONUNBUFFERED=1 python3 "$here/$e.py" >"$out/torch-$e.json" 2>"$out/torch-$e.log" ||
    echo "crosscheck $e failed (see $out/torch-$e.log)" >&2
done
python3 "$here/compare.py" "$verifier_json" "$out"/torch-*.json
