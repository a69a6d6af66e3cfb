#!/usr/bin/env bash
# The build-time cost of mlgo's inliner (issue #65): CPU time (user+sys,
# rusage of every compiler and linker run) of real packages built by their
# own CMake builds with stock clang-19 and with mlgo's plugin (embedded
# model, in every compile step and, under LTO, in the link through mlgo's
# lld), at the same size-conscious flags
#   -Oz -ffunction-sections -fdata-sections -fuse-ld=lld
#   -Wl,--gc-sections -Wl,--icf=all
# without LTO, with -flto=thin and with -flto. Each package is configured
# once per configuration; every round rebuilds it from clean (ninja -j1),
# stock and plugin alternating, and the best round of each counts. Prints,
# per package and LTO mode, the CPU seconds of the compile steps, of the
# links and of the whole build (every compiler and linker run), stock and
# plugin, and the ratio plugin/stock; then the totals over the packages.
#
#   bench/advisor-time.sh BUILD_DIR WORK [ROUNDS [PKG...]]
#
# BUILD_DIR is mlgo's build (its lib/mlgo); ROUNDS defaults to 3, the
# packages to tinyxml2 cjson cmark (Debian sources, scripts/fetch-source.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
work=$(mkdir -p "$2" && cd "$2" && pwd)
rounds=${3:-3}
shift 3 2>/dev/null || shift $#
pkgs=("$@")
[[ ${#pkgs[@]} -gt 0 ]] || pkgs=(tinyxml2 cjson cmark)
plugin=$build/lib/mlgo/mlgo-plugin.so
linker=$build/lib/mlgo/lld/ld.lld
[[ -f $plugin && -x $linker ]] || {
  echo "advisor-time: build mlgo-plugin in $build first" >&2
  exit 1
}

# The compiler wrappers: the plugin when MLGO_BENCH_PLUGIN=1, and one line
# "compile|link user sys" per run appended to $MLGO_BENCH_LOG.
mkdir -p "$work/bin"
for cc in clang-19 clang++-19; do
  cat >"$work/bin/$cc" <<EOF
#!/usr/bin/env bash
kind=link extra=()
for a in "\$@"; do [[ \$a == -c ]] && kind=compile; done
if [[ \${MLGO_BENCH_PLUGIN:-0} == 1 ]]; then
  if [[ \$kind == compile ]]; then
    extra=(-fplugin=$plugin -fpass-plugin=$plugin)
  else
    extra=(--ld-path=$linker)
  fi
fi
exec /usr/bin/time -f "\$kind %U %S" -a -o "\${MLGO_BENCH_LOG:-/dev/null}" \\
  /usr/bin/$cc "\$@" "\${extra[@]}"
EOF
  chmod +x "$work/bin/$cc"
done

common="-Oz -ffunction-sections -fdata-sections"
link="-fuse-ld=lld -Wl,--gc-sections -Wl,--icf=all"
# configure PKG MODE DIR: a CMake build tree of PKG in DIR.
configure() {
  local pkg=$1 mode=$2 dir=$3 src flags=$common ldflags=$link extra=()
  src=$("$root/scripts/fetch-source.sh" "$pkg" "$work/src")
  case $mode in
  none) ;;
  thin) flags+=" -flto=thin" ldflags+=" -flto=thin" ;;
  full) flags+=" -flto" ldflags+=" -flto" ;;
  esac
  case $pkg in
  cjson) extra=(-DENABLE_CUSTOM_COMPILER_FLAGS=OFF) ;;
  tinyxml2) extra=(-Dtinyxml2_BUILD_TESTING=ON) ;;
  esac
  [[ -f $dir/build.ninja ]] && return 0
  MLGO_BENCH_LOG=/dev/null cmake -S "$src" -B "$dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER="$work/bin/clang-19" \
    -DCMAKE_CXX_COMPILER="$work/bin/clang++-19" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$ldflags" -DCMAKE_SHARED_LINKER_FLAGS="$ldflags" \
    -DCMAKE_AR=/usr/bin/llvm-ar-19 -DCMAKE_RANLIB=/usr/bin/llvm-ranlib-19 \
    "${extra[@]}" >"$dir.configure.log" 2>&1 ||
    { echo "advisor-time: configuring $pkg ($mode) failed, see $dir.configure.log" >&2; exit 1; }
}
# build DIR PLUGIN(0|1) LOG: a clean build; sums LOG into "compile link".
build() {
  local dir=$1 use=$2 log=$3
  ninja -C "$dir" -t clean >/dev/null
  : >"$log"
  MLGO_BENCH_PLUGIN=$use MLGO_BENCH_LOG=$log ninja -C "$dir" -j1 >"$log.out" 2>&1 ||
    { echo "advisor-time: build of $dir failed, see $log.out" >&2; exit 1; }
  awk '{ t[$1] += $2 + $3 } END { printf "%.3f %.3f\n", t["compile"], t["link"] }' "$log"
}

printf '%-9s %-4s %-7s %9s %9s %7s\n' package lto part stock plugin ratio
declare -A sum
for pkg in "${pkgs[@]}"; do
  for mode in none thin full; do
    dir=$work/$pkg-$mode
    configure "$pkg" "$mode" "$dir"
    bc=1e9 bl=1e9 bt=1e9 pc=1e9 pl=1e9 pt=1e9
    for ((r = 1; r <= rounds; ++r)); do
      # Alternate which configuration goes first.
      order=(0 1)
      ((r % 2 == 0)) && order=(1 0)
      for use in "${order[@]}"; do
        read -r c l < <(build "$dir" "$use" "$work/$pkg-$mode.$use.log")
        t=$(awk -v c="$c" -v l="$l" 'BEGIN { print c + l }')
        if [[ $use == 0 ]]; then
          read -r bc bl bt < <(awk -v a="$bc" -v b="$bl" -v d="$bt" -v c="$c" -v l="$l" -v t="$t" \
            'BEGIN { print (c < a ? c : a), (l < b ? l : b), (t < d ? t : d) }')
        else
          read -r pc pl pt < <(awk -v a="$pc" -v b="$pl" -v d="$pt" -v c="$c" -v l="$l" -v t="$t" \
            'BEGIN { print (c < a ? c : a), (l < b ? l : b), (t < d ? t : d) }')
        fi
      done
    done
    for part in compile link build; do
      case $part in
      compile) s=$bc p=$pc ;;
      link) s=$bl p=$pl ;;
      build) s=$bt p=$pt ;;
      esac
      awk -v pk="$pkg" -v m="$mode" -v pa="$part" -v s="$s" -v p="$p" \
        'BEGIN { printf "%-9s %-4s %-7s %9.3f %9.3f %7.3f\n", pk, m, pa, s, p, (s > 0 ? p / s : 0) }'
      sum[$mode.$part.s]=$(awk -v a="${sum[$mode.$part.s]:-0}" -v b="$s" 'BEGIN { print a + b }')
      sum[$mode.$part.p]=$(awk -v a="${sum[$mode.$part.p]:-0}" -v b="$p" 'BEGIN { print a + b }')
    done
  done
done
for mode in none thin full; do
  for part in compile link build; do
    awk -v m="$mode" -v pa="$part" -v s="${sum[$mode.$part.s]}" -v p="${sum[$mode.$part.p]}" \
      'BEGIN { printf "%-9s %-4s %-7s %9.3f %9.3f %7.3f\n", "total", m, pa, s, p, (s > 0 ? p / s : 0) }'
  done
done
