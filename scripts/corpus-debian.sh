#!/usr/bin/env bash
# Builds an MLGO training corpus from Debian bookworm source packages.
#
# Each package is fetched with `apt-get source`, built with clang-19 at -Oz
# with `-Xclang -fembed-bitcode=all` (so every object carries its
# pre-optimization bitcode in .llvmbc and its cc1 command line in .llvmcmd),
# under `bear` (or CMake's own compile_commands.json), and then extracted with
# `mlgo corpus extract` into OUT/<package>/. Finally every package corpus is
# combined into OUT/corpus_description.json, whose modules are named
# <package>/<module> and point at the per-package files (no copies).
#
# A package that fails to fetch, build or extract is reported in
# OUT/packages.tsv with the reason and skipped; the script never stops at one.
# Builds are idempotent (a stamp per package), so a rerun only redoes what
# failed. The package versions and the flags used are recorded in
# OUT/packages.tsv and OUT/build-info.txt.
#
#   scripts/corpus-debian.sh [--out DIR] [--jobs N] [--mlgo PATH]
#                            [--c | --cxx | --all] [--build-only] [PKG...]
#
# Defaults: --out corpus/ in the repository, --jobs 1, the C packages of
# /work/shared/CORPUS.md. Run it under `nice -n 19` on a shared machine.
#
# Package-specific recipes (why a package needs one) are in recipe_args below.
set -uo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/corpus"
jobs=1
mlgo="${MLGO:-$here/build-corpus/bin/mlgo}"
build_only=0
set_name=c
pkgs=()

c_pkgs=(zlib bzip2 lua5.4 expat libyaml pcre2 zstd lz4 brotli lmdb libuv1
        jansson libxml2 redis libjpeg-turbo giflib libwebp lzo2 libsodium
        libarchive)
cxx_pkgs=(fmtlib snappy jsoncpp double-conversion pugixml ninja-build
          cppcheck googletest)

while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --mlgo) mlgo="$2"; shift 2 ;;
    --c) set_name=c; shift ;;
    --cxx) set_name=cxx; shift ;;
    --all) set_name=all; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    -*) echo "corpus-debian: unknown option $1" >&2; exit 2 ;;
    *) pkgs+=("$1"); shift ;;
  esac
done
if [[ ${#pkgs[@]} -eq 0 ]]; then
  case "$set_name" in
    c) pkgs=("${c_pkgs[@]}") ;;
    cxx) pkgs=("${cxx_pkgs[@]}") ;;
    all) pkgs=("${c_pkgs[@]}" "${cxx_pkgs[@]}") ;;
  esac
fi

OPT_FLAGS="-Oz"
EMBED_FLAGS="-Xclang -fembed-bitcode=all"
FLAGS="$OPT_FLAGS $EMBED_FLAGS"

# Many Makefiles put their own -O2 after CFLAGS, and the last -O wins; so the
# compilers are wrappers that append the flags after everything else. The
# real clang-19 invocation (what bear records, what .llvmcmd stores) then
# ends in -Oz -Xclang -fembed-bitcode=all whatever the package does.
mkdir -p "$out/.work/bin"
for pair in "clang-19-mlgo:clang-19" "clang++-19-mlgo:clang++-19"; do
  printf '#!/bin/sh\nexec %s "$@" %s\n' "${pair#*:}" "$FLAGS" > "$out/.work/bin/${pair%%:*}"
  chmod +x "$out/.work/bin/${pair%%:*}"
done
CC="$out/.work/bin/clang-19-mlgo"
CXX="$out/.work/bin/clang++-19-mlgo"
export CC CXX CFLAGS="$FLAGS" CXXFLAGS="$FLAGS" LDFLAGS=""
export DEB_BUILD_OPTIONS=nocheck
log() { echo "corpus-debian: $*" >&2; }

# The deb-src entry `apt-get source` needs.
if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  "$here/scripts/setup.sh" --sources || { log "cannot add a deb-src entry"; exit 1; }
fi

{
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "compiler: $($CC --version | head -1)"
  echo "CC=$CC CXX=$CXX (wrappers running clang-19/clang++-19 \"\$@\" $FLAGS)"
  echo "CFLAGS=$FLAGS"
  echo "CXXFLAGS=$FLAGS"
  echo "jobs: $jobs"
  echo "packages: ${pkgs[*]}"
} > "$out/build-info.txt"

# Extra arguments per package: "cmake:<args>", "configure:<args>",
# "make:<args>", or "system:<cmake|configure|make>" to force one build system.
recipe_args() {
  case "$1" in
    # Plain Makefile; its own OPTIMIZATION variable would add -O2, jemalloc
    # is vendored and not part of the program we want.
    redis) echo "system:make" ;;
    # Debian's lua5.4 builds with its own libtool Makefile; upstream's
    # src/Makefile appends MYCFLAGS after its -O2, so -Oz wins.
    lua5.4) echo "system:make" ;;
    lmdb) echo "system:make" ;;
    bzip2) echo "system:make" ;;
    *) echo "" ;;
  esac
}

# Sets the array MAKE_ARGS for a plain-Makefile package.
set_make_args() {
  case "$1" in
    redis) MAKE_ARGS=(MALLOC=libc "OPTIMIZATION=$OPT_FLAGS" "CFLAGS=$EMBED_FLAGS"
                      BUILD_TLS=no USE_SYSTEMD=no "CC=$CC") ;;
    lua5.4) MAKE_ARGS=(linux "CC=$CC" "MYCFLAGS=$FLAGS") ;;
    *) MAKE_ARGS=("CC=$CC" "CXX=$CXX" "CFLAGS=$FLAGS" "CXXFLAGS=$FLAGS") ;;
  esac
}

# Echoes the directory holding the package's build entry point, relative
# to the unpacked source: where upstream keeps it below the top level.
src_subdir() {
  case "$1" in
    lmdb) echo "libraries/liblmdb" ;;
    expat) echo "expat" ;;
    *) echo "." ;;
  esac
}

cmake_args() {
  echo "-DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=None -DBUILD_SHARED_LIBS=ON"
}

try_cmake() {
  local src="$1" bld="$2"
  [[ -f "$src/CMakeLists.txt" ]] || return 99
  rm -rf "$bld"
  cmake -S "$src" -B "$bld" -G "Unix Makefiles" $(cmake_args) \
    -DCMAKE_C_COMPILER=$CC -DCMAKE_CXX_COMPILER=$CXX \
    -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON || return 1
  make -C "$bld" -j"$jobs" -k
  local rc=$?
  cp "$bld/compile_commands.json" "$3"
  [[ $rc -eq 0 ]]
}

try_configure() {
  local src="$1" cc="$3"
  if [[ ! -x "$src/configure" ]]; then
    if [[ -f "$src/configure.ac" || -f "$src/configure.in" ]]; then
      (cd "$src" && autoreconf -fi) || return 1
    else
      return 99
    fi
  fi
  local args=()
  if (cd "$src" && ./configure --help 2>/dev/null | grep -q -- --disable-static); then
    # Static and shared objects of one source are the same module twice.
    args=(--disable-static --disable-dependency-tracking)
  fi
  (cd "$src" && ./configure "${args[@]}") || return 1
  (cd "$src" && bear --output "$cc" -- make -j"$jobs" -k)
}

try_make() {
  local src="$1" cc="$3"
  [[ -f "$src/Makefile" || -f "$src/makefile" || -f "$src/GNUmakefile" ]] || return 99
  set_make_args "$pkg"
  (cd "$src" && bear --output "$cc" -- make -j"$jobs" -k "${MAKE_ARGS[@]}")
}

status_file="$out/packages.tsv"
declare -A status reason version system
start_all=$(date +%s)

for pkg in "${pkgs[@]}"; do
  w="$out/.work/$pkg"
  mkdir -p "$w"
  cc="$w/compile_commands.json"
  t0=$(date +%s)
  if [[ -f "$w/build.ok" ]]; then
    version[$pkg]=$(cat "$w/version")
    system[$pkg]=$(cat "$w/system")
  else
    log "$pkg: fetching"
    rm -rf "$w" "$out/$pkg"; mkdir -p "$w"
    if ! (cd "$w" && apt-get source -qq "$pkg" > fetch.log 2>&1); then
      status[$pkg]=skipped; reason[$pkg]="apt-get source failed (see .work/$pkg/fetch.log)"
      continue
    fi
    dsc=$(ls "$w"/*.dsc | head -1)
    version[$pkg]=$(sed -n 's/^Version: //p' "$dsc")
    echo "${version[$pkg]}" > "$w/version"
    src=$(find "$w" -mindepth 1 -maxdepth 1 -type d | head -1)/$(src_subdir "$pkg")
    recipe=$(recipe_args "$pkg")
    forced=""
    [[ "$recipe" == system:* ]] && forced="${recipe#system:}"
    log "$pkg ${version[$pkg]}: building"
    built=""
    partial=""
    for sys in configure cmake make; do
      [[ -n "$forced" && "$sys" != "$forced" ]] && continue
      "try_$sys" "$src" "$w/build" "$w/cc-$sys.json" > "$w/build-$sys.log" 2>&1
      rc=$?
      [[ $rc -eq 99 ]] && { rm -f "$w/build-$sys.log"; continue; }
      # `make -k` keeps compiling after a failed link or test program: the
      # objects it did build are still good modules.
      if grep -qs '"file"' "$w/cc-$sys.json"; then
        built=$sys
        [[ $rc -ne 0 ]] && partial="partial build: make reported errors (see .work/$pkg/build-$sys.log)"
        cp "$w/cc-$sys.json" "$cc"
        break
      fi
    done
    if [[ -z "$built" ]]; then
      status[$pkg]=skipped
      reason[$pkg]="build failed with every build system tried (see .work/$pkg/build-*.log)"
      continue
    fi
    echo "$partial" > "$w/build-note"
    system[$pkg]=$built
    echo "$built" > "$w/system"
    echo "$(( $(date +%s) - t0 ))" > "$w/build-seconds"
    touch "$w/build.ok"
  fi
  if [[ $build_only -eq 1 ]]; then
    status[$pkg]=built; reason[$pkg]=""
    continue
  fi
  if [[ ! -x "$mlgo" ]]; then
    status[$pkg]=built; reason[$pkg]="not extracted: no mlgo at $mlgo"
    continue
  fi
  log "$pkg: extracting"
  rm -rf "$out/$pkg"
  if "$mlgo" corpus extract --compile-commands "$cc" --output "$out/$pkg" \
       --threads "$jobs" --allow-partial > "$w/extract.log" 2>&1; then
    status[$pkg]=ok
    reason[$pkg]="$(cat "$w/build-note") $(grep -E '^(extracted|skipped)' "$w/extract.log" | tr '\n' ' ')"
  else
    status[$pkg]=skipped
    reason[$pkg]="extraction failed: $(tail -1 "$w/extract.log")"
    rm -rf "$out/$pkg"
  fi
done

{
  printf 'package\tversion\tbuild-system\tbuild-seconds\tstatus\tdetails\n'
  for pkg in "${pkgs[@]}"; do
    secs=$(cat "$out/.work/$pkg/build-seconds" 2>/dev/null || echo -)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$pkg" "${version[$pkg]:--}" \
      "${system[$pkg]:--}" "$secs" "${status[$pkg]:-?}" "${reason[$pkg]:-}"
  done
} > "$status_file"
echo "total-seconds: $(( $(date +%s) - start_all ))" >> "$out/build-info.txt"

ok=()
for pkg in "${pkgs[@]}"; do
  [[ "${status[$pkg]:-}" == ok ]] && ok+=("$out/$pkg")
done
if [[ ${#ok[@]} -gt 0 ]]; then
  "$mlgo" corpus combine "${ok[@]}" -o "$out" || log "combining failed"
  "$mlgo" corpus stats --threads "$jobs" "$out" > "$out/stats.txt" 2>&1 || true
fi
column -t -s $'\t' "$status_file" >&2
