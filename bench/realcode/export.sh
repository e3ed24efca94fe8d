#!/usr/bin/env bash
# Exports the manifest's repositories, at their pinned commits, to DEST (outside this
# repository): DEST/<owner>+<name>/... . The snapshots come from the search tool's `fetch`
# (/work/.mirror/<owner>+<name>/repo, or MIRROR); a repository not fetched yet is named and
# skipped. Nothing here is committed; CI does not need it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: export.sh DEST}
mirror=${MIRROR:-/work/.mirror}
case "$(realpath -m "$dest")/" in
  "$(realpath "$here/../..")"/*) echo "export.sh: DEST must be outside the repository" >&2; exit 2 ;;
esac
mkdir -p "$dest"
# REALCODE_SET=NAME: the repositories of NAME_manifest.tsv (outside, fresh), whole.
manifest=$here/manifest.tsv
[[ -n "${REALCODE_SET:-}" ]] && manifest=$here/${REALCODE_SET}_manifest.tsv
ext_re="py|cpp|cc|cxx|h|hpp|cu|cuh|toml|cfg|yml|yaml|json"
missing=0
while IFS=$'\t' read -r repo commit _kind subset; do
  [[ -z "$repo" || "$repo" == \#* ]] && continue
  [[ -n "${REALCODE_SET:-}" ]] && subset=.
  git_dir="$mirror/${repo/\//+}/repo"
  out="$dest/${repo/\//+}"
  if ! git --git-dir="$git_dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "export.sh: $repo at $commit not fetched (fetch github:$repo)" >&2
    missing=$((missing + 1))
    continue
  fi
  rm -rf "$out"
  mkdir -p "$out"
  # Sources and the files that configure them only: snapshots lack large binary files.
  n=0
  while IFS= read -r -d '' path; do
    [[ "$path" =~ \.($ext_re)$ || "$path" =~ (^|/)requirements[^/]*\.txt$ ]] || continue
    mkdir -p "$out/$(dirname "$path")"
    # Files of 4 MiB and more are absent from snapshots: skipped, not an error.
    if git --git-dir="$git_dir" cat-file blob "$commit:$path" >"$out/$path" 2>/dev/null; then
      n=$((n + 1))
    else
      rm -f "$out/$path"
    fi
  done < <(git --git-dir="$git_dir" ls-tree -r -z --name-only "$commit" -- "$subset")
  echo "$repo $commit -> $out ($n files)"
done <"$manifest"
[[ $missing -eq 0 ]] || { echo "export.sh: $missing repositories missing" >&2; exit 1; }
