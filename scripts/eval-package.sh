#!/usr/bin/env bash
# Package recipes for `mlgo eval package` (tools/mlgo/EvalCommands.cpp), which
# runs this script and does the measuring, timing and reporting itself. The
# recipes are shell because building a Debian source package is shell work;
# everything that must be exact (sizes, times, RSS, test verdicts) is C++.
#
#   eval-package.sh packages                     the packages with a recipe
#   eval-package.sh fetch PKG CACHE              unpacked Debian source dir
#   eval-package.sh build PKG SRC OUT JOBS [PLUGIN [MODEL]]
#       copies SRC to OUT/src and builds it there with clang-19 -Oz (plus the
#       plugin, and -mlgo-model=MODEL, when given). The compilers are wrappers
#       in OUT/bin that append "-Oz" (so a Makefile's own -O2 cannot override
#       it) and the plugin flags, and record each run's peak RSS (KiB, GNU
#       time's %M) in OUT/rss.log.
#   eval-package.sh tests PKG                    the package's test names
#   eval-package.sh test PKG OUT NAME            runs one test in OUT/src;
#       exit status 0 means it passed
#
# Tests are the package's own suite where it has one: zlib's `make
# teststatic/testshared/test64`, bzip2's `make test` steps (one test per
# sample file and direction). Debian's lua5.4 source carries no test suite
# (upstream's lua-5.4.4-tests is a separate tarball), so lua5.4 runs the
# scripts in test/Eval/Inputs/lua/, each a set of assertions over one part of
# the language and its libraries, with lua and with luac-compiled chunks.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "eval-package: $*" >&2; exit 2; }
packages=(zlib bzip2 lua5.4)

known() {
  local p
  for p in "${packages[@]}"; do [[ $p == "$1" ]] && return 0; done
  die "no recipe for package '$1' (known: ${packages[*]})"
}

write_wrapper() { # NAME COMPILER OUT EXTRA...
  local name=$1 compiler=$2 out=$3; shift 3
  local extra="" a
  for a in "$@"; do extra+=" '$a'"; done
  cat >"$out/bin/$name" <<EOF
#!/bin/sh
exec /usr/bin/time -f %M -a -o '$out/rss.log' $compiler "\$@" -Oz$extra
EOF
  chmod +x "$out/bin/$name"
}

lua_makefile() { # a plain Makefile for lua's src/ (Debian's wants libtool)
  cat <<'EOF'
CFLAGS = -Wall -Wextra -DLUA_COMPAT_5_3 -DLUA_USE_LINUX
LIB_SRC = $(filter-out lua.c luac.c,$(wildcard *.c))
LIB_OBJ = $(LIB_SRC:.c=.o)
all: lua luac
liblua.a: $(LIB_OBJ)
	ar rcs $@ $(LIB_OBJ)
lua: lua.o liblua.a
	$(CC) -o $@ lua.o liblua.a -lm -ldl
luac: luac.o liblua.a
	$(CC) -o $@ luac.o liblua.a -lm -ldl
%.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@
EOF
}

cmd=${1:-}; shift || true
case $cmd in
packages)
  printf '%s\n' "${packages[@]}"
  ;;
fetch)
  known "$1"
  exec "$root/scripts/fetch-source.sh" "$1" "$2"
  ;;
build)
  pkg=$1 src=$2 out=$3 jobs=$4 plugin=${5:-} model=${6:-}
  known "$pkg"
  rm -rf "$out"; mkdir -p "$out/bin"; : >"$out/rss.log"
  extra=(-Wno-unused-command-line-argument)
  if [[ -n $plugin ]]; then
    extra+=("-fplugin=$plugin" "-fpass-plugin=$plugin")
    [[ -z $model ]] || extra+=(-mllvm "-mlgo-model=$model")
  fi
  write_wrapper cc clang-19 "$out" "${extra[@]}"
  write_wrapper c++ clang++-19 "$out" "${extra[@]}"
  cp -a "$src" "$out/src"
  cd "$out/src"
  cc=$out/bin/cc
  case $pkg in
  zlib)
    CC=$cc CFLAGS="-Oz" ./configure
    make -j"$jobs" all all64
    ;;
  bzip2)
    # The shared library's objects are built with -fPIC under the same
    # names as the static ones, so build it first and clean in between.
    make -j"$jobs" -f Makefile-libbz2_so CC="$cc"
    rm -f ./*.o
    make -j"$jobs" CC="$cc" libbz2.a bzip2 bzip2recover
    ;;
  lua5.4)
    # debian/rules generates this header (luaconf.h includes it).
    echo "#define DEB_HOST_MULTIARCH \"$(gcc -dumpmachine 2>/dev/null ||
      clang-19 -dumpmachine)\"" >src/lua5.4-deb-multiarch.h
    lua_makefile >src/Makefile.mlgo
    make -j"$jobs" -C src -f Makefile.mlgo CC="$cc"
    ;;
  esac
  ;;
tests)
  known "$1"
  case $1 in
  zlib) printf '%s\n' teststatic testshared test64 ;;
  bzip2)
    for i in 1 2 3; do echo "sample$i-compress"; done
    for i in 1 2 3; do echo "sample$i-decompress"; done
    ;;
  lua5.4)
    for f in "$root"/test/Eval/Inputs/lua/*.lua; do
      b=$(basename "$f" .lua)
      echo "$b"; echo "$b-luac"
    done
    ;;
  esac
  ;;
test)
  pkg=$1 out=$2 name=$3
  known "$pkg"
  cd "$out/src"
  case $pkg in
  zlib)
    [[ $name =~ ^(teststatic|testshared|test64)$ ]] || die "no zlib test '$name'"
    make "$name"
    ;;
  bzip2)
    # The commands of bzip2's `make test`: compress sampleN.ref at level N
    # and compare with sampleN.bz2; decompress sampleN.bz2 (sample3 with
    # -s, the small-memory decoder) and compare with sampleN.ref.
    [[ $name =~ ^sample([123])-(compress|decompress)$ ]] || die "no bzip2 test '$name'"
    i=${BASH_REMATCH[1]}
    if [[ ${BASH_REMATCH[2]} == compress ]]; then
      ./bzip2 "-$i" <"sample$i.ref" >"sample$i.rb2"
      cmp "sample$i.bz2" "sample$i.rb2"
    else
      flag=-d; [[ $i == 3 ]] && flag=-ds
      ./bzip2 $flag <"sample$i.bz2" >"sample$i.tst"
      cmp "sample$i.tst" "sample$i.ref"
    fi
    ;;
  lua5.4)
    base=${name%-luac}
    script=$root/test/Eval/Inputs/lua/$base.lua
    [[ -f $script ]] || die "no lua test '$name'"
    cd src
    if [[ $name == *-luac ]]; then
      ./luac -o "$base.luac" "$script"
      ./lua "$base.luac"
    else
      ./lua "$script"
    fi
    ;;
  esac
  ;;
*)
  die "usage: eval-package.sh packages|fetch|build|tests|test ..."
  ;;
esac
