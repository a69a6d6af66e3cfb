#!/usr/bin/env bash
# Do two builds of the plugin decide alike? Compiles real sources (Debian's
# tinyxml2, cjson, zlib, bzip2 and lua5.4: every file that compiles on its
# own) with clang-19 -Oz, -Oz -flto=thin and (tinyxml2, lua) -Oz -flto,
# once with each plugin (embedded model), and compares the objects byte by
# byte. Extra arguments go to the second plugin's compiles (e.g. -mllvm
# -mlgo-inline-verify-tracking). Prints a line per differing or failing
# compile, then the counts; exits 1 on any.
#
#   bench/advisor-identity.sh OLD_PLUGIN NEW_PLUGIN WORK [FLAG...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=$1 new=$2 work=$3
shift 3
mkdir -p "$work"
src() { "$root/scripts/fetch-source.sh" "$1" "$work/src"; }
files=("$(src tinyxml2)"/tinyxml2.cpp "$(src tinyxml2)"/xmltest.cpp
  "$(src cjson)"/cJSON.c "$(src cjson)"/cJSON_Utils.c "$(src cjson)"/test.c)
mapfile -t -O "${#files[@]}" files < <(ls "$(src zlib)"/*.c "$(src bzip2)"/*.c \
  "$(src lua5.4)"/src/*.c)
same=0 differ=0 failed=0 skipped=0
for f in "${files[@]}"; do
  cc=clang-19
  [[ $f == *.cpp ]] && cc=clang++-19
  for mode in none thin full; do
    case $mode in
    none) flags=() ;;
    thin) flags=(-flto=thin) ;;
    full) flags=(-flto) ;;
    esac
    [[ $mode == full && $f != *tinyxml2* && $f != *lua* ]] && continue
    n=$work/$(basename "$f").$mode
    if ! $cc -Oz -w "${flags[@]}" -I"$(dirname "$f")" -c "$f" -o "$n.old.o" \
      -fplugin="$old" -fpass-plugin="$old" 2>/dev/null; then
      skipped=$((skipped + 1)) # does not compile on its own
      continue
    fi
    if ! $cc -Oz -w "${flags[@]}" -I"$(dirname "$f")" -c "$f" -o "$n.new.o" \
      -fplugin="$new" -fpass-plugin="$new" "$@" 2>"$n.err"; then
      echo "failed: $f ($mode): $(head -1 "$n.err")"
      failed=$((failed + 1))
    elif cmp -s "$n.old.o" "$n.new.o"; then
      same=$((same + 1))
    else
      echo "differ: $f ($mode)"
      differ=$((differ + 1))
    fi
  done
done
echo "identical $same, differing $differ, failed $failed, not standalone $skipped"
[[ $differ == 0 && $failed == 0 ]]
