#!/usr/bin/env bash
# Installs what mlgo needs on Debian 12 (bookworm), and nothing that is
# already there. Idempotent; safe to run on every ./run.sh and ./test.sh.
#
#   scripts/setup.sh            build + test dependencies (libclang-rt-19-dev:
#                               libFuzzer and the sanitizer runtimes of
#                               clang-19, for bench/fuzz.sh)
#   scripts/setup.sh --sources  also a deb-src entry for bookworm main, so
#                               `apt-get source PKG` works (corpus, eval),
#                               and the autotools that packages without a
#                               shipped configure script need
#                               (scripts/corpus-debian.sh: libsodium and
#                               libarchive run autoreconf); ./test.sh
#   scripts/setup.sh --main     only what ./run.sh's main job needs: the
#                               build's, the deb-src entry, and what the
#                               eval packages are built and measured with
#                               (GNU time, bear, valgrind's callgrind) - not
#                               PyTorch, pytest, Open MPI, the sanitizer
#                               runtimes or clang-format, which only tests
#                               use (a later --sources adds them, and
#                               scripts/build.sh's next configure sees them)
set -euo pipefail

mode=${1:-}
case $mode in
"" | --sources | --main) ;;
*)
  echo "setup: unknown mode '$mode' (none, --sources or --main)" >&2
  exit 2
  ;;
esac
want_sources=0
[[ $mode == --sources || $mode == --main ]] && want_sources=1

# What configuring and building bin/mlgo and the plugin needs (CMake finds
# GoogleTest, Google Benchmark and Eigen at configure time), then what the
# eval packages need: apt-get source (dpkg-dev), GNU time (peak RSS), bear
# (the corpus build of `mlgo tune --package`), valgrind (callgrind for the
# speed table), bolt-19 and libbolt-19-dev (llvm-bolt-19, merge-fdata-19
# and the instrumentation runtime of `mlgo eval --bolt`: BOLT's
# instrumentation mode, which needs no hardware counters).
main_packages=(
  cmake ninja-build g++ make python3
  llvm-19 llvm-19-dev llvm-19-tools clang-19 lld-19 libclang-19-dev libclang-cpp19-dev
  libgtest-dev libgmock-dev libbenchmark-dev libeigen3-dev
  bear dpkg-dev time valgrind pkg-config bolt-19 libbolt-19-dev
)
packages=(
  "${main_packages[@]}"
  libclang-rt-19-dev clang-format-19
  # The Python package (python/, docs/python.md) and its tests and PPO
  # example, all for Debian's /usr/bin/python3.
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest
  python3-torch
  # Runs across machines (docs/distributed.md).
  openmpi-bin libopenmpi-dev
)
[[ $mode == --sources ]] && packages+=(autoconf automake libtool)
[[ $mode == --main ]] && packages=("${main_packages[@]}")

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install packages" >&2; exit 1; }
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive

updated=0
apt_update() {
  if [[ $updated -eq 0 ]]; then
    $SUDO apt-get update -qq
    updated=1
  fi
}

if [[ $want_sources -eq 1 ]]; then
  if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "setup: adding a deb-src entry for bookworm main"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      | $SUDO tee /etc/apt/sources.list.d/mlgo-deb-src.sources >/dev/null
    updated=0
  fi
  apt_update
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "setup: installing ${missing[*]}"
  apt_update
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
