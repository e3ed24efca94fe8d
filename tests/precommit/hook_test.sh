#!/usr/bin/env bash
# The hook as users install it: a throwaway repository whose .pre-commit-config.yaml points at a
# git copy of this repository's .pre-commit-hooks.yaml, installed with the real `pre-commit`.
# A commit with a finding is blocked and the finding printed; a clean commit passes; a
# `# gpulint: ignore[...]` comment lets the first one through.
#   hook_test.sh SOURCE_DIR GPULINT_BINARY
set -euo pipefail
source_dir=$1
gpulint=$2
if ! command -v pre-commit >/dev/null 2>&1; then
  echo "SKIPPED: pre-commit is not installed (scripts/setup.sh installs Debian's pre-commit)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home PRE_COMMIT_HOME=$work/pre-commit-home
mkdir -p "$HOME" "$work/bin"
ln -s "$gpulint" "$work/bin/gpulint"
export PATH=$work/bin:$PATH
git_quiet() { git -c user.name=test -c user.email=test@example.com -c init.defaultBranch=main "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# The hook repository: this repository's hook definition, committed.
mkdir "$work/hooks"
cp "$source_dir/.pre-commit-hooks.yaml" "$work/hooks/"
git_quiet -C "$work/hooks" init -q
git_quiet -C "$work/hooks" add .pre-commit-hooks.yaml
git_quiet -C "$work/hooks" commit -qm hooks
rev=$(git -C "$work/hooks" rev-parse HEAD)

mkdir "$work/project"
cd "$work/project"
git_quiet init -q
cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: file://$work/hooks
    rev: $rev
    hooks:
      - id: gpulint
YAML
git_quiet add .pre-commit-config.yaml
git_quiet commit -qm config
pre-commit install >/dev/null

cat >train.py <<'PY'
import torch

model = torch.nn.Linear(8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x = torch.randn(4, 8, device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(loss.item())
PY
git_quiet add train.py
if git_quiet commit -qm "train" >"$work/blocked.log" 2>&1; then
  cat "$work/blocked.log"
  fail "a commit with findings went through"
fi
grep -q "train.py:12:11: GL101 \[item-in-loop\]" "$work/blocked.log" ||
  { cat "$work/blocked.log"; fail "the blocked commit did not print the finding"; }
echo "ok: a commit with a finding is blocked and the finding printed"

cat >clean.py <<'PY'
def add(a, b):
    return a + b
PY
git_quiet reset -q
git_quiet add clean.py
git_quiet commit -qm "clean" >"$work/clean.log" 2>&1 || { cat "$work/clean.log"; fail "a clean commit was blocked"; }
echo "ok: a clean commit passes"

sed -i 's/    print(loss.item())/    print(loss.item())  # gpulint: ignore[GL101, GL104]/' train.py
git_quiet add train.py
git_quiet commit -qm "train, suppressed" >"$work/ignored.log" 2>&1 ||
  { cat "$work/ignored.log"; fail "the suppression did not let the commit through"; }
echo "ok: # gpulint: ignore[...] lets it through"
[ "$(git log --oneline | wc -l)" -eq 3 ] || fail "expected 3 commits"

# A helper staged alone is judged by the step loop that calls it, in a file not staged.
sed -i 's/    print(loss.item())  # gpulint: ignore\[GL101, GL104\]/    helpers.log(loss)/' train.py
sed -i 's/^import torch$/import torch\nimport helpers/' train.py
git_quiet add train.py
git_quiet commit -qm "train calls a helper" >"$work/helper-caller.log" 2>&1 ||
  { cat "$work/helper-caller.log"; fail "the caller alone was blocked"; }
cat >helpers.py <<'PY'
def log(loss):
    return loss.item()
PY
git_quiet add helpers.py
if git_quiet commit -qm "helper" >"$work/helper.log" 2>&1; then
  cat "$work/helper.log"
  fail "a helper that the step loop calls went through with .item() in it"
fi
grep -q "helpers.py:2:12: GL101" "$work/helper.log" ||
  { cat "$work/helper.log"; fail "the helper's finding was not printed"; }
grep -q "train.py" "$work/helper.log" || { cat "$work/helper.log"; fail "no note of the caller"; }
if grep -q "^train.py:" "$work/helper.log"; then
  cat "$work/helper.log"
  fail "a file that was not staged was reported"
fi
echo "ok: a staged helper is judged by the step loop that calls it; only staged files reported"
