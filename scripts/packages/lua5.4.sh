# lua5.4: upstream's Makefile, `make linux` (liblua.a, lua, luac; MYCFLAGS
# comes after its -O2). Debian's 0001-build-system.patch makes src/Makefile
# compile through `libtool`, which bookworm's libtool package does not
# provide without libtool-bin; upstream's src/Makefile builds the same
# sources directly. 0002-lua-modules-paths.patch needs a header debian/rules
# generates (module search paths only). The other Debian patches, including
# the CVE fixes, are applied.
build_system=make
drop_patches=(0001-build-system.patch 0002-lua-modules-paths.patch)
make_args=(linux "CC=$CC" "MYCFLAGS=$CFLAGS")

# Debian's source carries no test suite (upstream's lua-5.4.4-tests is a
# separate tarball): the scripts in test/Eval/Inputs/lua/, each a set of
# assertions over one part of the language and its libraries, run with lua
# and as luac-compiled chunks.
list_tests() {
  local f b
  for f in "$repo"/test/Eval/Inputs/lua/*.lua; do
    b=$(basename "$f" .lua)
    echo "$b"
    echo "$b-luac"
  done
}

run_test() {
  local base=${1%-luac}
  local script=$repo/test/Eval/Inputs/lua/$base.lua
  [[ -f $script ]] || die "no lua test '$1'"
  cd src
  if [[ $1 == *-luac ]]; then
    ./luac -o "$base.luac" "$script"
    ./lua "$base.luac"
  else
    ./lua "$script"
  fi
}

# The benchmark: the interpreter runs scripts/packages/lua5.4-bench.lua
# (word counts of the 1 MiB of C sources, sorting, formatting, arithmetic);
# the profile comes from the test scripts above.
bench_programs=(src/lua)
# lua and the liblua.a it links (not luac).
speed_objects='src/(lua|l[^u][a-z0-9]*|lu[^a][a-z0-9]*)\.o'
bench_workload() {
  "$PWD/src/lua" "$repo/scripts/packages/lua5.4-bench.lua" "$bench_input" \
    >"$1/bench.out"
  [[ $(wc -l <"$1/bench.out") == 3 ]]
}
