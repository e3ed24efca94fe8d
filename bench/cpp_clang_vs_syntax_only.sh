#!/usr/bin/env bash
# The C++ front end's two speed bounds, measured side by side: one file through gpulint's Clang
# path against `clang++ -fsyntax-only` with the same flags (at most 1.15x), and ten files that
# share the torch preamble against that one file (at most 4x). Uses Debian's libtorch-dev
# headers; the ten files are copies of FILE (default: the LibTorch MNIST fixture) under ten
# names. The machine may be shared and noisy, so the three runs alternate for ROUNDS rounds;
# each round prints CPU (user + sys) and wall seconds, and the end the medians of the per-round
# ratios.
#   bench/cpp_clang_vs_syntax_only.sh BUILD_DIR [ROUNDS] [FILE]
set -euo pipefail
build=$(realpath "${1:?usage: cpp_clang_vs_syntax_only.sh BUILD_DIR [ROUNDS] [FILE]}")
rounds=${2:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
source_file=$(realpath "${3:-$here/fixtures/cpp/realistic/mnist.cpp}")
flags=(-std=c++17 -isystem /usr/include/torch/csrc/api/include)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/one" "$work/ten"
cp "$source_file" "$work/one/train.cpp"
for i in 0 1 2 3 4 5 6 7 8 9; do cp "$source_file" "$work/ten/train_$i.cpp"; done
# One compile database for both directories, with the flags the clang++ run gets.
{
  echo "["
  sep=""
  for f in "$work/one/train.cpp" "$work"/ten/train_*.cpp; do
    printf '%s{"directory": "%s", "file": "%s", "arguments": ["clang++", %s, "-c", "%s"]}\n' \
      "$sep" "$work" "$f" "$(printf '"%s", ' "${flags[@]}" | sed 's/, $//')" "$f"
    sep=","
  done
  echo "]"
} >"$work/compile_commands.json"

# "CPU WALL" of one command, its children included; its output is dropped.
measure() {
  /usr/bin/time -f '%U %S %e' -o "$work/time" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$work/time" | awk '{ printf "%.2f %.2f\n", $1 + $2, $3 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-6s %22s %22s %22s\n' round 'clang++ -fsyntax-only' 'gpulint, 1 file' 'gpulint, 10 files'
printf '%-6s %11s %10s %11s %10s %11s %10s\n' '' cpu wall cpu wall cpu wall
: >"$work/ratios"
for r in $(seq 1 "$rounds"); do
  read -r s_cpu s_wall < <(measure clang++-14 "${flags[@]}" -fsyntax-only -w "$work/one/train.cpp")
  read -r o_cpu o_wall < <(measure "$build/gpulint" --no-cache -p "$work" "$work/one")
  read -r t_cpu t_wall < <(measure "$build/gpulint" --no-cache -p "$work" "$work/ten")
  printf '%-6s %11s %10s %11s %10s %11s %10s\n' "$r" "$s_cpu" "$s_wall" "$o_cpu" "$o_wall" \
    "$t_cpu" "$t_wall"
  echo "$o_cpu $s_cpu $o_wall $s_wall $t_cpu $t_wall" >>"$work/ratios"
done
ratio() { awk "{ print \$$1 / \$$2 }" "$work/ratios" | median; }
printf 'median ratio, 1 file / clang++ -fsyntax-only: %.2f CPU, %.2f wall (bound 1.15)\n' \
  "$(ratio 1 2)" "$(ratio 3 4)"
printf 'median ratio, 10 files / 1 file:              %.2f CPU, %.2f wall (bound 4)\n' \
  "$(ratio 5 1)" "$(ratio 6 3)"
