#!/usr/bin/env bash
# Fetches the pinned tree-sitter runtime and grammars from the npm registry into DEST,
# checks each tarball against grammars.lock, and unpacks it. Idempotent: a package already
# unpacked at its pinned version is left alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: fetch.sh DEST}
mkdir -p "$dest"
while read -r name version integrity; do
  case "$name" in ''|'#'*) continue ;; esac
  out="$dest/$name"
  if [ -f "$out/.pinned" ] && [ "$(cat "$out/.pinned")" = "$version $integrity" ]; then
    continue
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "$name@$version" >/dev/null)
  tarball="$tmp/$name-$version.tgz"
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [ "$actual" != "$integrity" ]; then
    echo "fetch.sh: $name@$version: integrity mismatch (expected $integrity, got $actual)" >&2
    exit 1
  fi
  rm -rf "$out"
  mkdir -p "$out"
  tar -xzf "$tarball" -C "$out" --strip-components=1
  echo "$version $integrity" >"$out/.pinned"
  rm -rf "$tmp"
  trap - EXIT
  echo "fetch.sh: $name@$version unpacked into $out"
done <"$here/grammars.lock"
