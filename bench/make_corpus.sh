#!/usr/bin/env bash
# Builds a benchmark corpus for gpulint_corpus_bench out of the repository's own PyTorch code
# (fixtures/python/**/*.py and examples/*.py), so the corpus has the constructs gpulint looks
# at rather than arbitrary Python. The sources are copied COPIES times, each copy in its own
# folder; by default as many copies as make about 20 MB.
#
#   bench/make_corpus.sh DEST [COPIES]
set -euo pipefail
usage="usage: make_corpus.sh DEST [COPIES]"
dest=${1:?$usage}
copies=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
target_bytes=$((20 * 1024 * 1024))

if [ -e "$dest" ] && [ -n "$(ls -A "$dest")" ]; then
  echo "make_corpus.sh: $dest exists and is not empty; give a new or empty folder" >&2
  exit 2
fi

mapfile -d '' sources < <(
  cd "$root" &&
    { find fixtures/python -type f -name '*.py' -print0 2>/dev/null || true
      find examples -maxdepth 1 -type f -name '*.py' -print0 2>/dev/null || true; } |
    sort -z)
if [ "${#sources[@]}" -eq 0 ]; then
  echo "make_corpus.sh: no .py files under $root/fixtures/python or $root/examples" >&2
  exit 2
fi
set_bytes=$(cd "$root" && cat -- "${sources[@]}" | wc -c)
if [ "$set_bytes" -eq 0 ]; then
  echo "make_corpus.sh: the source files are all empty" >&2
  exit 2
fi

if [ -z "$copies" ]; then
  copies=$(((target_bytes + set_bytes - 1) / set_bytes))
fi
case "$copies" in
  '' | *[!0-9]* | 0) echo "$usage (COPIES is a positive integer)" >&2; exit 2 ;;
esac

mkdir -p "$dest"
# One copy is laid out once, then duplicated by cp, which is far faster than a loop per file.
first="$dest/copy_0001"
mkdir -p "$first"
(cd "$root" && cp --parents -- "${sources[@]}" "$first/")
for ((i = 2; i <= copies; i++)); do
  cp -r "$first" "$dest/$(printf 'copy_%04d' "$i")"
done

echo "make_corpus.sh: ${#sources[@]} files x $copies copies = $((${#sources[@]} * copies)) files," \
  "$((set_bytes * copies)) bytes in $dest"
