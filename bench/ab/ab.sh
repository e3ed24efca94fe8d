#!/usr/bin/env bash
# Compares two revisions of gpulint's per-file pipeline side by side in one process: each
# revision is built (Release, position-independent) into a shared library, and ab_harness times
# both and the parse-only floor file by file, interleaved. Two builds of the same revision agree
# to about 0.3% on the development machine, where runs of the corpus bench vary by 2-3%.
# --passes times them pass by pass instead (ab_harness.cpp says when that matters).
#
#   bench/ab/ab.sh REV_A REV_B CORPUS_DIR [REPEATS] [--passes]   (a REV of "." is the worktree)
#
# Revisions older than this script lack the library's CMake target and cannot be built.
set -euo pipefail
# A build that fails inside $(build ...) must stop the script, not time the last good library.
shopt -s inherit_errexit
usage="usage: ab.sh REV_A REV_B CORPUS_DIR [REPEATS] [--passes]"
rev_a=${1:?$usage}
rev_b=${2:?$usage}
corpus=${3:?$usage}
repeats=${4:-20}
mode=${5:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${GPULINT_AB_DIR:-/tmp/gpulint-ab}
mkdir -p "$work"

# Prints the path of the library built from revision $1.
build() {
  local rev=$1 src name
  if [ "$rev" = . ]; then
    src=$root
    name=worktree
  else
    name=$(git -C "$root" rev-parse --short "$rev")
    src=$work/src-$name
    if [ ! -d "$src" ]; then
      mkdir -p "$src"
      git -C "$root" archive "$rev" | tar -x -C "$src"
    fi
  fi
  cmake -S "$src" -B "$work/build-$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON >/dev/null
  cmake --build "$work/build-$name" --target gpulint_ab_lint gpulint_ab_harness >/dev/null
  echo "$work/build-$name/bench/libgpulint_ab_lint.so"
}

built_a=$(build "$rev_a")
built_b=$(build "$rev_b")
# Copies under their own names: dlopen hands out one library once, and the same code run twice on
# each file would find the second run's caches warm.
cp "$built_a" "$work/A.so"
cp "$built_b" "$work/B.so"
echo "A = $rev_a, B = $rev_b"
"$(dirname "$built_b")/gpulint_ab_harness" "$corpus" "$work/A.so" "$work/B.so" "$repeats" $mode
