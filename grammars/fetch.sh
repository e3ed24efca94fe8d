#!/usr/bin/env bash
# Fetches the pinned tree-sitter runtime and grammars from the npm registry into DEST,
# checks each tarball against grammars.lock, and unpacks it. Idempotent: a package already
# unpacked at its pinned version is left alone. The tarballs are plain HTTPS downloads, so curl
# does it: Debian's npm brings 470 packages (150 MB) to a fresh machine, curl a few.
# NPM_CONFIG_REGISTRY names a mirror, as it does for npm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: fetch.sh DEST}
registry=${NPM_CONFIG_REGISTRY:-https://registry.npmjs.org}
registry=${registry%/}
mkdir -p "$dest"
while read -r name version integrity; do
  case "$name" in ''|'#'*) continue ;; esac
  out="$dest/$name"
  if [ -f "$out/.pinned" ] && [ "$(cat "$out/.pinned")" = "$version $integrity" ]; then
    continue
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tarball="$tmp/$name-$version.tgz"
  if ! curl -fsSL --retry 3 -o "$tarball" "$registry/$name/-/$name-$version.tgz"; then
    echo "fetch.sh: $name@$version: download from $registry failed" >&2
    exit 1
  fi
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
