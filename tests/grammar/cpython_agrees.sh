#!/usr/bin/env bash
# Differential test of the pinned Python grammar against CPython: every Python file of the
# fixtures and examples that CPython compiles must get no GL000 from gpulint (a valid file the
# grammar rejects would lose its findings). Files CPython rejects must get one.
#   cpython_agrees.sh SOURCE_DIR GPULINT
set -euo pipefail
src=${1:?usage: cpython_agrees.sh SOURCE_DIR GPULINT}
gpulint=${2:?usage: cpython_agrees.sh SOURCE_DIR GPULINT}
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
find "$src/fixtures" "$src/examples" -name '*.py' -print0 | sort -z >"$work/files"
# One CPython for all files: the valid ones, then the invalid ones.
python3 - "$work/files" "$work/valid" "$work/invalid" <<'PY'
import sys
files = open(sys.argv[1], "rb").read().split(b"\0")
with open(sys.argv[2], "wb") as valid, open(sys.argv[3], "wb") as invalid:
    for f in filter(None, files):
        try:
            compile(open(f, "rb").read(), f.decode(), "exec", dont_inherit=True)
            valid.write(f + b"\0")
        except (SyntaxError, ValueError):
            invalid.write(f + b"\0")
PY
count() { tr -cd '\0' <"$1" | wc -c; }
echo "CPython accepts $(count "$work/valid") files and rejects $(count "$work/invalid")"
[ "$(count "$work/valid")" -gt 100 ] || { echo "too few files found under $src"; exit 1; }

# GL000 on a file CPython accepts is a grammar disagreement.
xargs -0 "$gpulint" --no-cache --select GL000 --format github <"$work/valid" >"$work/out" || true
if grep -q 'GL000' "$work/out"; then
  echo "GL000 on files CPython compiles:"
  grep 'GL000' "$work/out"
  exit 1
fi
fail=0
while IFS= read -r -d '' f; do
  out=$("$gpulint" --no-cache --select GL000 --format github "$f" || true)
  if [[ "$out" != *GL000* ]]; then
    echo "no GL000 on $f, which CPython rejects"
    fail=1
  fi
done <"$work/invalid"
exit "$fail"
