#!/usr/bin/env bash
# One C++ file through gpulint's Clang path against `clang++ -fsyntax-only` with the same flags,
# side by side (the issue's bound: at most 1.15x). Uses Debian's libtorch-dev headers and the
# LibTorch MNIST fixture; prints wall seconds for each and their ratio.
#   bench/cpp_clang_vs_syntax_only.sh BUILD_DIR [FILE]
set -euo pipefail
build=${1:?usage: cpp_clang_vs_syntax_only.sh BUILD_DIR [FILE]}
here=$(cd "$(dirname "$0")/.." && pwd)
file=$(realpath "${2:-$here/fixtures/cpp/realistic/mnist.cpp}")
flags=(-std=c++17 -isystem /usr/include/torch/csrc/api/include)
db=$(mktemp -d)
trap 'rm -rf "$db"' EXIT
printf '[{"directory": "%s", "file": "%s", "arguments": ["clang++", %s, "-c", "%s"]}]\n' \
  "$here" "$file" "$(printf '"%s", ' "${flags[@]}" | sed 's/, $//')" "$file" >"$db/compile_commands.json"
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
syntax=$(seconds clang++-14 "${flags[@]}" -fsyntax-only -w "$file")
gpulint=$(seconds "$build/gpulint" --no-cache -p "$db" "$file")
printf 'clang++ -fsyntax-only: %.2f s\ngpulint (Clang path):  %.2f s\nratio:                 %.2f\n' \
  "$syntax" "$gpulint" "$(echo "$gpulint / $syntax" | bc -l)"
