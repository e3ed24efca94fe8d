#!/usr/bin/env bash
# Precision per rule and overall on the labelled real-code findings, recall on the read loops,
# and each disagreement.   bench/realcode/score.sh BUILD_DIR [EXPORT_DIR]
# EXPORT_DIR (default /work/realcode) is made by bench/realcode/export.sh; CI does not run this.
# REALCODE_SET=NAME scores NAME_labels.tsv on NAME_manifest.tsv's repositories instead
# (exported with REALCODE_SET=NAME export.sh DEST): outside, fresh, fresh2, fresh3, fresh4.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: score.sh BUILD_DIR [EXPORT_DIR]}
export_dir=${2:-/work/realcode}
[[ -d "$export_dir" ]] || { echo "score.sh: $export_dir missing: run $here/export.sh $export_dir" >&2; exit 2; }
exec python3 "$here/realcode.py" score "$build/gpulint" "$export_dir"
