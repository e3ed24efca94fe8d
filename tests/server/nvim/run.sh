#!/bin/sh
# The Neovim test: a copy of train.py in a scratch directory, Neovim headless running
# lsp_test.lua, and what it saw checked here. Exit 77 (skipped) where Neovim is not installed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
gpulint=$1
command -v nvim >/dev/null 2>&1 || { echo "nvim is not installed (apt-get install neovim)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/../train.py" "$work/train.py"
GPULINT_BINARY=$gpulint GPULINT_WORKDIR=$work GPULINT_RESULT=$work/result.txt \
  timeout 120 nvim --headless --clean -n -c "luafile $here/lsp_test.lua" >"$work/nvim.log" 2>&1 || true
cat "$work/result.txt" 2>/dev/null || { echo "Neovim left no result"; cat "$work/nvim.log"; exit 1; }
fail=0
check() { grep -qF -- "$1" "$work/result.txt" || { echo "missing: $1"; fail=1; }; }
check "ok"
check "diagnostics: GL101 GL104 GL202"
check "action: GL202: suppress on this line"
check "applied: GL202: set \`pin_memory=True\`"
check "line:     loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)"
check "GL202 gone after the edit"
check "hover: **GL101** (item-in-loop)"
# The file on disk is the user's: the edit is in the buffer, unsaved.
cmp -s "$here/../train.py" "$work/train.py" || { echo "the file on disk was changed"; fail=1; }
exit $fail
