#!/usr/bin/env bash
# The embedded model inside LTO links (issue #65, "The model under LTO"):
# each package built by its own build system with the size-conscious
# flags -Oz -ffunction-sections -fdata-sections -fuse-ld=lld
# -Wl,--gc-sections -Wl,--icf=all, once per configuration:
#
#   oz          no LTO, stock clang-19 (the reference of eval's tables)
#   thin        -flto=thin, stock clang-19 and ld.lld-19
#   thin-mlgo   -flto=thin, the plugin in every compile step and in the
#               link (lld through mlgo's lib/mlgo/lld/ld.lld, --ld-path)
#   full        -flto, stock
#   full-mlgo   -flto, the plugin in compiles and link
#
# For each build it runs every test of the package's recipe, and prints a
# row: package, configuration, code bytes of its final executables and
# shared libraries (every executable section, as `mlgo size` counts them;
# static archives are left out, as under LTO they hold bitcode), tests passed of
# run, and the CPU seconds (user+sys, children included) of the whole
# build - configure included, so the ratio of two configurations
# understates the compilers' own difference.
#
#   bench/lto-packages.sh BUILD_DIR WORK [CONFIGS] PKG...
#
# BUILD_DIR is mlgo's build (its lib/mlgo); builds go to
# WORK/<package>/<config>; CONFIGS (default all five) is a comma list.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
work=$2
shift 2
configs=oz,thin,thin-mlgo,full,full-mlgo
if [[ ${1:-} == *,* || ${1:-} == oz || ${1:-} == thin* || ${1:-} == full* ]]; then
  configs=$1
  shift
fi
plugin=$build/lib/mlgo/mlgo-plugin.so
linker=$build/lib/mlgo/lld/ld.lld
if [[ $configs == *mlgo* && ! ( -f $plugin && -x $linker ) ]]; then
  echo "lto-packages: build mlgo-plugin in $build first" >&2
  exit 1
fi
# code_bytes FILE...: the sizes of their executable sections, summed.
code_bytes() {
  llvm-readelf-19 -S -W "$@" | awk '
    function hex(s, i, n) {
      n = 0
      for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
      return n
    }
    /^ *\[ *[0-9]+\]/ {
      sub(/^ *\[ *[0-9]+\] */, "")
      for (i = 1; i <= NF; i++)
        if (length($i) == 16 && $i ~ /^[0-9a-f]+$/) {
          if ($(i + 4) ~ /X/) total += hex($(i + 2))
          break
        }
    }
    END { print total + 0 }'
}
common="-ffunction-sections -fdata-sections -fuse-ld=lld -Wl,--gc-sections -Wl,--icf=all"
mkdir -p "$work"
printf '%s\t%s\t%s\t%s\t%s\n' package config code_bytes tests cpu_s
for pkg in "$@"; do
  src=$("$root/scripts/fetch-source.sh" "$pkg" "$work/src")
  IFS=, read -ra cs <<<"$configs"
  for c in "${cs[@]}"; do
    out=$work/$pkg/$c
    flags=$common use_plugin=()
    case $c in
    oz) ;;
    thin) flags+=" -flto=thin" ;;
    full) flags+=" -flto" ;;
    thin-mlgo) flags+=" -flto=thin --ld-path=$linker" use_plugin=("$plugin") ;;
    full-mlgo) flags+=" -flto --ld-path=$linker" use_plugin=("$plugin") ;;
    *) echo "lto-packages: unknown configuration '$c'" >&2; exit 1 ;;
    esac
    mkdir -p "$work/$pkg"
    if ! MLGO_EVAL_EXTRA_FLAGS=$flags /usr/bin/time -f '%U %S' -o "$work/$pkg/$c.time" \
      "$root/scripts/eval-package.sh" build "$pkg" "$src" "$out" 2 "${use_plugin[@]}" \
      >"$work/$pkg/$c.build.log" 2>&1; then
      echo "lto-packages: $pkg $c: the build failed (see $work/$pkg/$c.build.log)" >&2
      exit 1
    fi
    cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$work/$pkg/$c.time")
    mapfile -t files < <(find "$out/src" -path '*/CMakeFiles' -prune -o \
      -type f -print | sort | while read -r f; do
        case $(file -b "$f") in
        ELF*executable* | ELF*shared\ object*) echo "$f" ;;
        esac
      done)
    code=$(code_bytes "${files[@]}")
    printf '%s\n' "${files[@]#"$out/src/"}" >"$work/$pkg/$c.artifacts"
    pass=0 run=0
    for t in $("$root/scripts/eval-package.sh" tests "$pkg"); do
      run=$((run + 1))
      if "$root/scripts/eval-package.sh" test "$pkg" "$out" "$t" >>"$work/$pkg/$c.test.log" 2>&1; then
        pass=$((pass + 1))
      fi
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$pkg" "$c" "$code" "$pass/$run" "$cpu"
  done
done
