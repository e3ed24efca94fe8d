#!/usr/bin/env bash
# Installs the SARIF validation tools pinned in package-lock.json (integrity-checked by npm ci)
# into DEST, normally BUILD_DIR/_sarif_tools, where the report_sarif tests look for them.
# Fast when present: nothing is fetched while DEST holds an install of this very lock file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: install.sh DEST}
want=$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)
if [ -f "$dest/.installed" ] && [ "$(cat "$dest/.installed")" = "$want" ] &&
  [ -x "$dest/node_modules/.bin/ajv" ]; then
  exit 0
fi
mkdir -p "$dest"
cp "$here/package.json" "$here/package-lock.json" "$dest/"
# Install scripts are not run: the only one here is the multitool's `chmod u+x`, done below,
# so the install stays the integrity-checked tarballs and nothing else.
(cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
multitool="$dest/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [ -f "$multitool" ]; then chmod u+x "$multitool"; fi
echo "$want" >"$dest/.installed"
echo "install.sh: SARIF validation tools installed into $dest"
