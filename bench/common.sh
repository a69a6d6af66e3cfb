# Shared by the bench scripts (sourced, not run): where the plugin is, and
# which C files of Debian packages a compile-time bench can build.
#
#   bench_plugin                 prints the plugin's path ($MLGO_PLUGIN, or
#                                build/lib/mlgo/mlgo-plugin.so), failing with a
#                                hint when it is not built
#   bench_standalone_c_files OPT OUT PKG...
#                                fills the array `ok` with every .c file
#                                (two directory levels deep, sorted) of the
#                                packages' Debian sources that compiles on
#                                its own with clang-19 OPT; OUT is a scratch
#                                directory

bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

bench_plugin() {
  local plugin="${MLGO_PLUGIN:-$bench_root/build/lib/mlgo/mlgo-plugin.so}"
  [[ -f "$plugin" ]] || { echo "build the plugin first (scripts/build.sh)" >&2; return 1; }
  echo "$plugin"
}

bench_standalone_c_files() {
  local opt=$1 out=$2 pkg src f files=()
  shift 2
  for pkg in "$@"; do
    src=$("$bench_root/scripts/fetch-source.sh" "$pkg")
    mapfile -t -O "${#files[@]}" files < <(find "$src" -maxdepth 2 -name '*.c' | sort)
  done
  ok=()
  for f in "${files[@]}"; do
    clang-19 "$opt" -w -c -I"$(dirname "$f")" "$f" -o "$out/probe.o" 2>/dev/null && ok+=("$f")
  done
  return 0
}
