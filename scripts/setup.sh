#!/usr/bin/env bash
# Installs gpulint's dependencies on Debian 12, then configures and builds.
#
#   scripts/setup.sh [lint|all]
#
# lint (the default): what the linter needs, and the gpulint target alone: no tests, no
# benchmarks, and no Clang front end unless Clang 14's development files are already installed
# (C++ files are then analysed by syntax; `all` adds it). all: everything the test suite needs
# too (GoogleTest, Clang, LibTorch's headers, pre-commit, the SARIF validator, Neovim), and every
# target.
# Idempotent: packages already installed are not touched, and apt is not called at all when
# nothing is missing. Environment: BUILD_DIR (default: build), relative to the repository root.
set -euo pipefail

cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
profile=${1:-lint}
case "$profile" in
  lint | all) ;;
  *)
    echo "usage: scripts/setup.sh [lint|all]" >&2
    exit 2
    ;;
esac

packages=(
  g++ cmake ninja-build
  curl openssl ca-certificates
  libfmt-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
  libgit2-dev pkgconf libjemalloc-dev
)
if [ "$profile" = all ]; then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev
    clang-14 libclang-rt-14-dev
    libclang-14-dev libclang-cpp14-dev llvm-14-dev libtorch-dev
    python3 pre-commit git nodejs npm
    neovim  # the language server's test in a real editor
  )
fi

log() { printf 'setup: %s\n' "$*"; }

# A package counts as present when dpkg reports it installed, or when an installed package
# provides it (nodejs from NodeSource provides npm, for example). One dpkg-query call.
missing_packages() {
  local present pkg
  present=$(dpkg-query -W -f='${Status}\t${Package}, ${Provides}\n' 2>/dev/null |
    awk -F'\t' '$1 == "install ok installed" { print $2 }' |
    tr ',' '\n' | sed -e 's/^ *//' -e 's/[ (:].*//' | sort -u)
  for pkg in "${packages[@]}"; do
    if ! grep -qxF -- "$pkg" <<<"$present"; then
      printf '%s\n' "$pkg"
    fi
  done
}

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: this script needs a Debian-based system (dpkg-query and apt-get not found)" >&2
  exit 1
fi

log "checking ${#packages[@]} packages"
mapfile -t missing < <(missing_packages)

if [ "${#missing[@]}" -eq 0 ]; then
  log "all packages present"
else
  log "missing: ${missing[*]}"
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      as_root=(sudo)
    else
      echo "setup: installing ${missing[*]} needs root;" \
        "run this script as root or install sudo" >&2
      exit 1
    fi
  fi
  log "apt-get update"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  log "apt-get install ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ "$profile" = all ]; then
  options=(-DGPULINT_BUILD_TESTS=ON -DGPULINT_BUILD_BENCH=ON -DGPULINT_WITH_CLANG=ON)
  targets=()
else
  clang=OFF
  [ -f /usr/lib/llvm-14/lib/cmake/clang/ClangConfig.cmake ] && clang=ON
  options=(-DGPULINT_BUILD_TESTS=OFF -DGPULINT_BUILD_BENCH=OFF -DGPULINT_WITH_CLANG=$clang)
  targets=(--target gpulint)
fi
log "configuring into $build_dir (${options[*]})"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${options[@]}"
log "building ${targets[*]:-everything}"
cmake --build "$build_dir" "${targets[@]}"
if [ "$profile" = all ]; then
  log "SARIF validation tools"
  tests/report_sarif/install.sh "$build_dir/_sarif_tools"
fi
log "done: $build_dir/gpulint"
