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
# run: c, cxx, all or a named subset), and the versions of every installed
# Debian package, whose headers enter the modules, in
# OUT/installed-packages.tsv (as of the last run).
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
#                            [--build-root DIR] [--speed]
#                            [--c | --cxx | --all] [--build-only] [--list]
#                            [PKG...]
#
# Defaults: --out corpus/ in the repository, --jobs 1, --mlgo build/bin/mlgo
# in the repository (what ./test.sh and ./run.sh build), --build-root
# /var/tmp/mlgo-corpus-build, the C packages. Run it under `nice -n 19` on a
# shared machine. --list prints the packages a run would build and exits.
#
# --speed builds the speed corpus (the eviction policy's, issue #48): every
# package at -O2 instead of -Oz (defaults: --out corpus-speed/, --build-root
# /var/tmp/mlgo-corpus-build-O2), then profiles each package whose recipe
# has a workload (profile_workload, else its tests) with `mlgo profile
# package --counts` (the profile, and the block counts of the workload run
# again under callgrind) and gives both to the corpus with `mlgo corpus
# profile`. OUT/profiles.tsv names every package: profiled (the profile's summary),
# or why not (no workload in its recipe; the profile build or workload
# failed, with the log).
#
# The packages (--c, --cxx, --all: the corpus-train and corpus-validation
# rows of scripts/packages/list.tsv, C or C++) and how each is built (its
# recipe, scripts/packages/PKG.sh, the one `mlgo eval package` builds it
# with) are in scripts/packages/; scripts/package-recipes.sh runs them.
set -uo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck disable=SC2034 # read by package-recipes.sh
recipes_prog=corpus-debian
# shellcheck source-path=SCRIPTDIR source=package-recipes.sh
source "$here/scripts/package-recipes.sh"
out=""
speed=0
jobs=1
mlgo="${MLGO:-$here/build/bin/mlgo}"
build_only=0
# Shipped models record the fingerprint of a corpus built here.
work=""
set_name=c
pkgs=()

list_only=0
# shellcheck disable=SC2207 # package names are words
c_pkgs=($(recipes_list 'corpus-.*' C)) || exit 2
# shellcheck disable=SC2207
cxx_pkgs=($(recipes_list 'corpus-.*' C++)) || exit 2

while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --mlgo) mlgo="$2"; shift 2 ;;
    --build-root) work="$2"; shift 2 ;;
    --speed) speed=1; shift ;;
    --c) set_name=c; shift ;;
    --cxx) set_name=cxx; shift ;;
    --all) set_name=all; shift ;;
    --build-only) build_only=1; shift ;;
    --list) list_only=1; shift ;;
    -h|--help) sed -n '2,58p' "$0"; exit 0 ;;
    -*) echo "corpus-debian: unknown option $1" >&2; exit 2 ;;
    *) pkgs+=("$1"); shift ;;
  esac
done
opt_flag=-Oz
if [[ $speed -eq 1 ]]; then
  opt_flag=-O2
  : "${out:=$here/corpus-speed}" "${work:=/var/tmp/mlgo-corpus-build-O2}"
fi
: "${out:=$here/corpus}" "${work:=/var/tmp/mlgo-corpus-build}"
explicit_pkgs=0
[[ ${#pkgs[@]} -gt 0 ]] && explicit_pkgs=1
if [[ ${#pkgs[@]} -eq 0 ]]; then
  case "$set_name" in
    c) pkgs=("${c_pkgs[@]}") ;;
    cxx) pkgs=("${cxx_pkgs[@]}") ;;
    all) pkgs=("${c_pkgs[@]}" "${cxx_pkgs[@]}") ;;
  esac
fi
# Every package has a line in the list, with the reason it is there.
for pkg in "${pkgs[@]}"; do
  recipes_has "$pkg" ||
    die "no recipe for package '$pkg' (scripts/packages/list.tsv has no line for it; docs/corpus.md, \"Adding a package\")"
done
if [[ $list_only -eq 1 ]]; then
  printf '%s\n' "${pkgs[@]}"
  exit 0
fi

# Without mlgo nothing can be extracted: say so before spending minutes on
# builds (--build-only needs no mlgo).
if [[ $build_only -eq 0 && ! -x "$mlgo" ]]; then
  echo "corpus-debian: no mlgo executable at $mlgo: build it (ninja -C build, or ./test.sh) or pass --mlgo PATH" >&2
  exit 1
fi

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

# Many Makefiles put their own -O2 after CFLAGS, and the last -O wins; so the
# compilers are wrappers that append the flags after everything else. The
# real clang-19 invocation (what bear records, what .llvmcmd stores) then
# ends in -Oz -Xclang -fembed-bitcode=all whatever the package does. They,
# LLVM's ar/nm/ranlib first on PATH and the exported build environment (CC,
# CXX, CFLAGS, ...) are the corpus flavour of scripts/package-recipes.sh.
recipes_corpus_setup "$work" "$jobs" "$opt_flag" || exit 1
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

status_file="$out/packages.tsv"
# The source tree `apt-get source` unpacked into the package's work
# directory $1: the directory holding debian/ (an earlier profile run may
# have left a work directory beside it).
unpacked_source() {
  find "$1" -mindepth 2 -maxdepth 2 -type d -name debian -printf '%h\n' |
    sort | head -1
}

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
    # The recipe's Debian patches to leave out: the source is unpacked
    # again without them.
    drops=$(recipe_get "$pkg" drop_patches)
    if [[ -n "$drops" ]] &&
       ! unpack_without_patches "$dsc" \
           "$(unpacked_source "$w")" \
           "$drops" > "$w/unpack.log" 2>&1; then
      status[$pkg]=skipped; reason[$pkg]="unpacking without $drops failed (see $w/unpack.log)"
      continue
    fi
    src=$(unpacked_source "$w")/$(recipe_get "$pkg" subdir)
    log "$pkg ${version[$pkg]}: building"
    built=""
    partial=""
    # A build system that exists but fails hands over to the next one; that
    # builds a different set of objects (expat with CMake gave 8 modules
    # with compile errors, with configure 14), so the fallback is named in
    # packages.tsv and on stderr.
    fell_back=""
    for sys in $(recipe_systems "$pkg"); do
      recipe_build "$pkg" "$sys" "$src" "$w/build" "$w/cc-$sys.json" \
        > "$w/build-$sys.log" 2>&1
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
    base=$(unpacked_source "$w")
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
# The headers of the installed packages (libc6-dev, libstdc++-12-dev,
# linux-libc-dev, each library a package builds against) are compiled into
# every module, code and debug info (line numbers) alike, so a corpus is a
# function of the day's Debian archive as well as of the sources: record
# which versions built it.
dpkg-query -W -f '${Package}\t${Version}\n' 2>/dev/null | LC_ALL=C sort \
  > "$out/installed-packages.tsv"
{
  printf 'installed: %s packages (installed-packages.tsv, md5 %s);' \
    "$(wc -l < "$out/installed-packages.tsv")" \
    "$(md5sum < "$out/installed-packages.tsv" | cut -c1-32)"
  for p in clang-19 libc6-dev libstdc++-12-dev linux-libc-dev; do
    printf ' %s %s' "$p" "$(awk -F'\t' -v p="$p" '$1 == p || $1 == p":amd64" { print $2 }' \
      "$out/installed-packages.tsv" | head -1)"
  done
  echo
  echo "total-seconds: $(( $(date +%s) - start_all ))"
} >> "$run_info"
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

# The speed corpus: each package profiled by its recipe's workload, in a
# build of its own (under BUILD-ROOT/.profiles/, apart from the package's
# directory, whose only other directory is its source) (`mlgo profile package`: -O2 -fprofile-generate, the
# package's build system), with the block counts of the same workload run
# under callgrind on a build with the profile (--counts), both then given to
# the combined corpus.
# A package without a workload, or whose profile run fails, is named in
# profiles.tsv with the reason; the corpus keeps its modules (unprofiled
# modules are left out of the speed reward, which the trainer's log says).
if [[ $speed -eq 1 && $build_only -eq 0 && ${#ok[@]} -gt 0 ]]; then
  profiles_file="$out/profiles.tsv"
  declare -A prow
  if [[ -f "$profiles_file" ]]; then
    while IFS=$'\t' read -r p rest; do
      [[ $p == package ]] || prow[$p]="$p"$'\t'"$rest"
    done < "$profiles_file"
  fi
  mkdir -p "$out/.work/profiles" "$work/.profiles"
  for pkg in "${pkgs[@]}"; do
    [[ " ${ok[*]} " == *" $out/$pkg "* ]] || continue
    pd="$out/.work/profiles/$pkg.profdata"
    if ! recipe_defines "$pkg" profile_workload &&
       ! { recipe_defines "$pkg" list_tests && recipe_defines "$pkg" run_test; }; then
      prow[$pkg]="$pkg"$'\t'"no workload"$'\t'"scripts/packages/$pkg.sh has no profile_workload and no tests"
      rm -f "$pd"
      continue
    fi
    pc="$out/.work/profiles/$pkg.counts.tsv"
    if [[ ! -f "$pd" || ! -f "$pc" ]]; then
      log "$pkg: profiling"
      rm -f "$pd" "$pc"
      if ! "$mlgo" profile package "$pkg" -o "$pd" --counts "$pc" --jobs "$jobs" \
             --work-dir "$work/.profiles/$pkg" > "$work/.profiles/$pkg.log" 2>&1; then
        prow[$pkg]="$pkg"$'\t'"failed"$'\t'"mlgo profile package: $(tail -1 "$work/.profiles/$pkg.log") (see $work/.profiles/$pkg.log)"
        rm -f "$pd" "$pc"
        continue
      fi
    fi
    prow[$pkg]="$pkg"$'\t'"profiled"$'\t'"$("$mlgo" profile show "$pd" 2>&1 | head -1); block counts: $(grep -c . "$pc") lines"
  done
  # The combined description was rewritten above: every profile goes back
  # into it, this run's and earlier runs'.
  for pd in "$out"/.work/profiles/*.profdata; do
    [[ -f $pd ]] || continue
    p=$(basename "$pd" .profdata)
    [[ -d "$out/$p" ]] || continue
    pc="$out/.work/profiles/$p.counts.tsv"
    counts=()
    [[ -f $pc ]] && counts=(--counts "$pc")
    "$mlgo" corpus profile "$out" --package "$p" --profile "$pd" "${counts[@]}" >&2 ||
      log "$p: mlgo corpus profile failed"
  done
  {
    printf 'package\tstatus\tdetails\n'
    for p in "${order[@]}"; do [[ -n ${prow[$p]:-} ]] && echo "${prow[$p]}"; done
  } > "$profiles_file.tmp" && mv "$profiles_file.tmp" "$profiles_file"
  column -t -s $'\t' "$profiles_file" >&2
fi
column -t -s $'\t' "$status_file" >&2
