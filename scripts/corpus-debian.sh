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
# OUT/packages.tsv (one row per package, merged across runs: a run replaces
# the rows of its own packages only) and OUT/build-info.txt (one section per
# run: c, cxx, all or a named subset).
#
# Every extracted package is first written to OUT/.staging/<package>; only
# when all of a run's extractions are done are the package directories
# swapped in (the previous ones move to OUT/.old/) and the combined
# description rewritten (atomically), so a trainer reading OUT never sees a
# half-written package.
#
# Packages are unpacked and built under a fixed build root, not under OUT:
# the bitcode and cc1 command lines record the build directory (cmake's
# absolute source paths, -I paths, __FILE__ strings, -fdebug-compilation-dir),
# so a corpus built anywhere else would differ byte for byte, and with it
# the corpus fingerprint and every model trained on it. With one build root,
# `--out corpus` and `--out ~/corpus` give the same corpus. The root is
# locked while a run uses it.
#
#   scripts/corpus-debian.sh [--out DIR] [--jobs N] [--mlgo PATH]
#                            [--build-root DIR]
#                            [--c | --cxx | --all] [--build-only] [PKG...]
#
# Defaults: --out corpus/ in the repository, --jobs 1, --mlgo build/bin/mlgo
# in the repository (what ./test.sh and ./run.sh build), --build-root
# /var/tmp/mlgo-corpus-build, the C packages (c_pkgs below). Run
# it under `nice -n 19` on a shared machine.
#
# Package-specific recipes (why a package needs one) are in recipe_args below.
set -uo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/corpus"
jobs=1
mlgo="${MLGO:-$here/build/bin/mlgo}"
build_only=0
# Shipped models record the fingerprint of a corpus built here.
work=/var/tmp/mlgo-corpus-build
set_name=c
pkgs=()

c_pkgs=(zlib bzip2 lua5.4 expat libyaml pcre2 zstd lz4 brotli lmdb libuv1
        jansson libxml2 redis libjpeg-turbo giflib libwebp lzo2 libsodium
        libarchive)
# jsoncpp's Debian source package is named libjsoncpp.
cxx_pkgs=(fmtlib snappy libjsoncpp double-conversion pugixml ninja-build
          cppcheck googletest)

while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --mlgo) mlgo="$2"; shift 2 ;;
    --build-root) work="$2"; shift 2 ;;
    --c) set_name=c; shift ;;
    --cxx) set_name=cxx; shift ;;
    --all) set_name=all; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    -*) echo "corpus-debian: unknown option $1" >&2; exit 2 ;;
    *) pkgs+=("$1"); shift ;;
  esac
done
explicit_pkgs=0
[[ ${#pkgs[@]} -gt 0 ]] && explicit_pkgs=1
if [[ ${#pkgs[@]} -eq 0 ]]; then
  case "$set_name" in
    c) pkgs=("${c_pkgs[@]}") ;;
    cxx) pkgs=("${cxx_pkgs[@]}") ;;
    all) pkgs=("${c_pkgs[@]}" "${cxx_pkgs[@]}") ;;
  esac
fi

# Without mlgo nothing can be extracted: say so before spending minutes on
# builds (--build-only needs no mlgo).
if [[ $build_only -eq 0 && ! -x "$mlgo" ]]; then
  echo "corpus-debian: no mlgo executable at $mlgo: build it (ninja -C build, or ./test.sh) or pass --mlgo PATH" >&2
  exit 1
fi

OPT_FLAGS="-Oz"
EMBED_FLAGS="-Xclang -fembed-bitcode=all"
FLAGS="$OPT_FLAGS $EMBED_FLAGS"

# Many Makefiles put their own -O2 after CFLAGS, and the last -O wins; so the
# compilers are wrappers that append the flags after everything else. The
# real clang-19 invocation (what bear records, what .llvmcmd stores) then
# ends in -Oz -Xclang -fembed-bitcode=all whatever the package does.
mkdir -p "$out" "$work/bin" || exit 1
out="$(cd "$out" && pwd)"
work="$(cd "$work" && pwd)"
# One run at a time per build root: a second one would rebuild the same
# package directories under the first.
exec 9> "$work/.lock"
if ! flock -n 9; then
  echo "corpus-debian: another run is using the build root $work (locked: $work/.lock)" >&2
  exit 1
fi

for pair in "clang-19-mlgo:clang-19" "clang++-19-mlgo:clang++-19"; do
  printf '#!/bin/sh\nexec %s "$@" %s\n' "${pair#*:}" "$FLAGS" > "$work/bin/${pair%%:*}"
  chmod +x "$work/bin/${pair%%:*}"
done
# GNU ar and nm auto-load /usr/lib/bfd-plugins/LLVMgold-14.so, which claims
# every object that carries .llvmbc, cannot read LLVM 19 bitcode, and leaves
# the object with "no symbols": archives get an empty index (static links
# fail with undefined references) and libtool's symbol-export pipe breaks.
# LLVM 19's own tools read these objects, so they come first on PATH.
for tool in ar nm ranlib; do
  ln -sf "/usr/bin/llvm-$tool-19" "$work/bin/$tool"
done
export PATH="$work/bin:$PATH"
CC="$work/bin/clang-19-mlgo"
CXX="$work/bin/clang++-19-mlgo"
export CC CXX CFLAGS="$FLAGS" CXXFLAGS="$FLAGS" LDFLAGS=""
export DEB_BUILD_OPTIONS=nocheck
log() { echo "corpus-debian: $*" >&2; }

# The deb-src entry `apt-get source` needs, and the autotools that packages
# without a configure script need (setup.sh installs only what is missing).
"$here/scripts/setup.sh" --sources >&2 ||
  { log "cannot install the deb-src entry or the build tools"; exit 1; }

run_name=$set_name
[[ $explicit_pkgs -eq 1 ]] && run_name="subset-$(echo "${pkgs[*]}" | tr ' ' '-')"
mkdir -p "$out/.work/runs"
run_info="$out/.work/runs/$run_name.txt"
{
  echo "[run $run_name]"
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "compiler: $($CC --version | head -1)"
  echo "CC=$CC CXX=$CXX (wrappers running clang-19/clang++-19 \"\$@\" $FLAGS)"
  echo "CFLAGS=$FLAGS"
  echo "CXXFLAGS=$FLAGS"
  echo "jobs: $jobs"
  echo "build root: $work"
  echo "tools: ar, nm, ranlib = llvm-ar-19, llvm-nm-19, llvm-ranlib-19"
  echo "packages: ${pkgs[*]}"
} > "$run_info"

# Recipe words per package: "system:<cmake|configure|make>" forces one build
# system; "autoreconf" regenerates the autotools files before configuring;
# "drop-patch:<name>" unpacks the source without that Debian patch (the
# others are applied).
recipe_args() {
  case "$1" in
    # Plain Makefile; its own OPTIMIZATION variable would add -O2, jemalloc
    # is vendored and not part of the program we want.
    redis) echo "system:make" ;;
    # Debian's 0001-build-system.patch makes src/Makefile compile through
    # `libtool`, which bookworm's libtool package does not provide without
    # libtool-bin; upstream's src/Makefile builds the same sources directly.
    # 0002-lua-modules-paths.patch needs a header debian/rules generates
    # (module search paths only). The other Debian patches, including the
    # CVE fixes, are applied.
    lua5.4) echo "system:make drop-patch:0001-build-system.patch drop-patch:0002-lua-modules-paths.patch" ;;
    lmdb) echo "system:make" ;;
    bzip2) echo "system:make" ;;
    # Their shipped configure/Makefile.in come from other autotools versions
    # than bookworm's ("libtool: Version mismatch error" for every libarchive
    # library source, "version mismatch. This is Automake 1.16.5" for
    # libxml2); Debian regenerates them too (dh_autoreconf).
    libarchive|libxml2) echo "autoreconf" ;;
    *) echo "" ;;
  esac
}

has_recipe() { [[ " $(recipe_args "$1") " == *" $2 "* ]]; }

# Sets the array MAKE_ARGS for a plain-Makefile package. CFLAGS is not set
# on the command line: that would override the Makefile's own assignments,
# including target-specific `CFLAGS += -fPIC` for shared objects (zstd,
# giflib); the compiler wrappers add the flags anyway.
set_make_args() {
  case "$1" in
    redis) MAKE_ARGS=(MALLOC=libc "OPTIMIZATION=$OPT_FLAGS" "CFLAGS=$EMBED_FLAGS"
                      BUILD_TLS=no USE_SYSTEMD=no "CC=$CC") ;;
    # Upstream's `linux` target; MYCFLAGS comes after its -O2.
    lua5.4) MAKE_ARGS=(linux "CC=$CC" "MYCFLAGS=$FLAGS") ;;
    *) MAKE_ARGS=("CC=$CC" "CXX=$CXX") ;;
  esac
}

# Re-unpacks the source in $1 (the .dsc's directory) without the Debian
# patches named in $2 (space-separated), applying the others in series order.
unpack_without_patches() {
  local w="$1" drop=" $2 " dsc dir
  dsc=$(ls "$w"/*.dsc | head -1)
  dir=$(find "$w" -mindepth 1 -maxdepth 1 -type d ! -name build | head -1)
  rm -rf "$dir"
  (cd "$w" && dpkg-source -q --skip-patches -x "$dsc" "$dir") || return 1
  local p
  while read -r p; do
    [[ -z "$p" || "$p" == \#* || "$drop" == *" $p "* ]] && continue
    (cd "$dir" && patch -p1 -s < "debian/patches/$p") || return 1
  done < "$dir/debian/patches/series"
}

# Echoes what went wrong in a build log whose make exited non-zero, so that
# packages.tsv says whether modules can be missing: compile errors name the
# sources; otherwise only the listed (non-object) targets failed, typically
# test programs or tools that failed to link, and every compile succeeded.
classify_build_log() {
  local log="$1" compile targets
  compile=$(grep -E '^[^ :]+\.(c|cc|cpp|cxx|h|hpp):[0-9]+:[0-9]+: (fatal )?error:' "$log" \
            | cut -d: -f1 | sort -u | tr '\n' ' ')
  if [[ -n "$compile" ]]; then
    echo "COMPILE ERRORS, modules missing for: $compile"
    return
  fi
  # Failed targets, minus the recursive ones that fail only because a
  # sub-make did.
  targets=$(sed -nE 's/.*\*\*\* \[[^]]*: ([^]]+)\] Error [0-9]+.*/\1/p' "$log" \
            | grep -vE '^(all|all-am|all-recursive|install|check|lib|lib-release|default|build|Makefile\.in|.*/all)$' \
            | sort -u)
  if grep -qE '\.(o|lo|obj)$' <<< "$targets"; then
    echo "OBJECTS FAILED: $(tr '\n' ' ' <<< "$targets")"
    return
  fi
  echo "every compile succeeded; failed targets (not objects): $(tr '\n' ' ' <<< "$targets" | cut -c1-200)"
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
    -DCMAKE_AR=/usr/bin/llvm-ar-19 -DCMAKE_RANLIB=/usr/bin/llvm-ranlib-19 \
    -DCMAKE_NM=/usr/bin/llvm-nm-19 \
    -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON || return 1
  make -C "$bld" -j"$jobs" -k
  local rc=$?
  cp "$bld/compile_commands.json" "$3"
  [[ $rc -eq 0 ]]
}

try_configure() {
  local src="$1" cc="$3"
  if has_recipe "$pkg" autoreconf; then
    (cd "$src" && autoreconf -fi) || return 1
  elif [[ ! -x "$src/configure" ]]; then
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
  w="$work/$pkg"
  mkdir -p "$w"
  cc="$w/compile_commands.json"
  t0=$(date +%s)
  if [[ -f "$w/build.ok" ]]; then
    version[$pkg]=$(cat "$w/version")
    system[$pkg]=$(cat "$w/system")
  else
    log "$pkg: fetching"
    rm -rf "$w"; mkdir -p "$w"   # the live corpus/$pkg is replaced only at the swap
    if ! (cd "$w" && apt-get source -qq "$pkg" > fetch.log 2>&1); then
      status[$pkg]=skipped; reason[$pkg]="apt-get source failed (see $w/fetch.log)"
      continue
    fi
    dsc=$(ls "$w"/*.dsc | head -1)
    version[$pkg]=$(sed -n 's/^Version: //p' "$dsc")
    echo "${version[$pkg]}" > "$w/version"
    drops=""
    for word in $(recipe_args "$pkg"); do
      [[ "$word" == drop-patch:* ]] && drops+="${word#drop-patch:} "
    done
    if [[ -n "$drops" ]] &&
       ! unpack_without_patches "$w" "$drops" > "$w/unpack.log" 2>&1; then
      status[$pkg]=skipped; reason[$pkg]="unpacking without $drops failed (see $w/unpack.log)"
      continue
    fi
    src=$(find "$w" -mindepth 1 -maxdepth 1 -type d | head -1)/$(src_subdir "$pkg")
    forced=""
    for word in $(recipe_args "$pkg"); do
      [[ "$word" == system:* ]] && forced="${word#system:}"
    done
    log "$pkg ${version[$pkg]}: building"
    built=""
    partial=""
    # A build system that exists but fails hands over to the next one; that
    # builds a different set of objects (expat with CMake gave 8 modules
    # with compile errors, with configure 14), so the fallback is named in
    # packages.tsv and on stderr.
    fell_back=""
    for sys in configure cmake make; do
      [[ -n "$forced" && "$sys" != "$forced" ]] && continue
      "try_$sys" "$src" "$w/build" "$w/cc-$sys.json" > "$w/build-$sys.log" 2>&1
      rc=$?
      [[ $rc -eq 99 ]] && { rm -f "$w/build-$sys.log"; continue; }
      # `make -k` keeps compiling after a failed link or test program: the
      # objects it did build are still good modules.
      if grep -qs '"file"' "$w/cc-$sys.json"; then
        built=$sys
        [[ $rc -ne 0 ]] && partial="make failed: $(classify_build_log "$w/build-$sys.log") (see $w/build-$sys.log);"
        cp "$w/cc-$sys.json" "$cc"
        break
      fi
      fell_back+="$sys failed (see $w/build-$sys.log), "
    done
    if [[ -n "$built" && -n "$fell_back" ]]; then
      partial="FELL BACK: ${fell_back}built with $built; $partial"
      log "$pkg: ${fell_back}built with $built instead"
    fi
    if [[ -z "$built" ]]; then
      status[$pkg]=skipped
      reason[$pkg]="build failed with every build system tried (see $w/build-*.log)"
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
  staged="$out/.staging/$pkg"
  rm -rf "$staged"
  mkdir -p "$out/.staging"
  # Modules are named relative to the build tree (CMake's build directory,
  # else the unpacked source), so recursive makes' subdirectories keep
  # their objects apart (redis: src/sds.o and deps/hiredis/sds.o).
  if [[ "${system[$pkg]}" == cmake ]]; then
    base="$w/build"
  else
    base=$(find "$w" -mindepth 1 -maxdepth 1 -type d ! -name build | head -1)
  fi
  if "$mlgo" corpus extract --compile-commands "$cc" --output "$staged" \
       --base-dir "$base" \
       --threads "$jobs" --allow-partial > "$w/extract.log" 2>&1; then
    status[$pkg]=ok
    reason[$pkg]="$(cat "$w/build-note") $(grep -E '^(extracted|skipped|dropped)' "$w/extract.log" | sed "s|$staged|corpus/$pkg|" | tr '\n' ' ')"
  else
    status[$pkg]=skipped
    reason[$pkg]="extraction failed: $(tail -1 "$w/extract.log")"
    rm -rf "$staged"
  fi
done

# Swap the staged package corpora in, all at once.
rm -rf "$out/.old"
for pkg in "${pkgs[@]}"; do
  [[ -d "$out/.staging/$pkg" ]] || continue
  mkdir -p "$out/.old"
  [[ -d "$out/$pkg" ]] && mv "$out/$pkg" "$out/.old/$pkg"
  mv "$out/.staging/$pkg" "$out/$pkg"
done
rmdir "$out/.staging" 2>/dev/null

# packages.tsv: this run's rows replace the same packages' earlier rows.
header=$'package\tversion\tbuild-system\tbuild-seconds\tstatus\tdetails'
declare -A row
order=()
if [[ -f "$status_file" ]]; then
  while IFS= read -r line; do
    p=${line%%$'\t'*}
    [[ "$line" == "$header" || -z "$p" ]] && continue
    # Rows of packages that are no longer a corpus-debian package
    # (renamed, e.g. jsoncpp -> libjsoncpp) go.
    [[ " ${c_pkgs[*]} ${cxx_pkgs[*]} " == *" $p "* ]] || continue
    row[$p]=$line; order+=("$p")
  done < "$status_file"
fi
for pkg in "${pkgs[@]}"; do
  secs=$(cat "$work/$pkg/build-seconds" 2>/dev/null || echo -)
  [[ -n "${row[$pkg]:-}" ]] || order+=("$pkg")
  row[$pkg]=$(printf '%s\t%s\t%s\t%s\t%s\t%s' "$pkg" "${version[$pkg]:--}" \
    "${system[$pkg]:--}" "$secs" "${status[$pkg]:-?}" "${reason[$pkg]:-}")
done
{
  echo "$header"
  for p in "${order[@]}"; do echo "${row[$p]}"; done
} > "$status_file.tmp" && mv "$status_file.tmp" "$status_file"
echo "total-seconds: $(( $(date +%s) - start_all ))" >> "$run_info"
cat "$out"/.work/runs/*.txt > "$out/build-info.txt.tmp" &&
  mv "$out/build-info.txt.tmp" "$out/build-info.txt"

# The combined corpus: every package whose row says ok, from any run.
ok=()
for p in "${order[@]}"; do
  [[ "$(cut -f5 <<< "${row[$p]}")" == ok && -d "$out/$p" ]] && ok+=("$out/$p")
done
if [[ ${#ok[@]} -gt 0 && $build_only -eq 0 ]]; then
  "$mlgo" corpus combine "${ok[@]}" -o "$out" || log "combining failed"
  "$mlgo" corpus stats --threads "$jobs" "$out" > "$out/stats.txt.tmp" 2>&1 &&
    mv "$out/stats.txt.tmp" "$out/stats.txt"
fi
column -t -s $'\t' "$status_file" >&2
