#!/usr/bin/env bash
# Memory per byte of a large Python file: gpulint's peak RSS linting one file, less its peak on a
# one-line file (the program itself), divided by the file's size. Four shapes, each at the sizes
# given (MB): code (the repository's fixtures without syntax errors, repeated), many simple
# statements on one line (`a0=0;a1=1;...`), one data literal on one line (`x = [0, 1, ...]`),
# and code with a syntax error at its start. Uses GNU time for the peak.
#   bench/large_file_memory.sh BUILD_DIR [SIZES...]   (MB; default sizes: 0.1 1 5 20)
set -euo pipefail
build=$(realpath "${1:?usage: large_file_memory.sh BUILD_DIR [SIZES...]}")
shift
sizes=("$@")
[ $# -gt 0 ] || sizes=(0.1 1 5 20)
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# gpulint exits 1 when it finds something; the peak is time's last line either way.
peak_kb() {
  { /usr/bin/time -f %M "$build/gpulint" --no-cache --max-file-size 64MB "$1" 2>&1 >/dev/null ||
    true; } | tail -1
}

echo "x = 1" >"$work/tiny.py"
base=$(peak_kb "$work/tiny.py")
echo "baseline (a one-line file): $((base / 1024)) MB peak RSS"
printf '%-16s %6s %10s %12s\n' shape MB "peak MB" "bytes/byte"
for mb in "${sizes[@]}"; do
  python3 - "$here" "$work" "$mb" <<'EOF'
import glob, sys
here, work, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
size = int(mb * 1000 * 1000)
fixtures = [f for f in sorted(glob.glob(here + "/fixtures/python/**/*.py", recursive=True))
            if "GL000" not in f]
code = "".join(open(f, encoding="utf-8").read() for f in fixtures)
text = code * (size // len(code) + 1)
# End at a top-level statement, so that the file has no syntax error.
text = text[: text.rfind("\nclass ", 0, size)] + "\n"
open(f"{work}/code.py", "w").write(text)
open(f"{work}/code_error_first.py", "w").write("x = (\n" + text)
parts, n, i = [], 0, 0
while n < size:
    parts.append(f"a{i}={i};"); n += len(parts[-1]); i += 1
open(f"{work}/statements_line.py", "w").write("".join(parts) + "\n")
parts, n, i = ["x = ["], 5, 0
while n < size:
    parts.append(f"{i}, "); n += len(parts[-1]); i += 1
open(f"{work}/literal_line.py", "w").write("".join(parts) + "]\n")
EOF
  for shape in code statements_line literal_line code_error_first; do
    file="$work/$shape.py"
    bytes=$(stat -c %s "$file")
    peak=$(peak_kb "$file")
    awk -v s="$shape" -v mb="$mb" -v p="$peak" -v b="$base" -v n="$bytes" \
      'BEGIN { printf "%-16s %6s %10.0f %12.1f\n", s, mb, p / 1024, (p - b) * 1024 / n }'
  done
done
