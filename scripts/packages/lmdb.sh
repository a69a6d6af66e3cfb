# lmdb: upstream keeps its plain Makefile in libraries/liblmdb.
build_system=make
subdir=libraries/liblmdb

# Eval: upstream's test programs, mtest.c and mtest2-5.c (the ones its
# Makefile builds; mtest6.c does not compile against the public lmdb.h),
# each on a fresh database as upstream's `coverage` target runs them: the
# main DB, a named sub-DB, sorted duplicates, sorted fixed-size duplicates
# and sorted duplicates through mdb_cursor_put; random keys are added,
# looked up, walked with cursors and deleted. Each aborts (E() and CHECK())
# on any LMDB call that fails. All but mtest4 seed rand() with time(NULL);
# build_tests builds copies seeded with 1, outside the measured tree, so
# that every build and every run does the same operations.
build_tests() {
  local d=$out/mtest-seeded t
  mkdir -p "$d"
  for t in $(list_tests); do
    sed 's/srand(time(NULL))/srand(1)/' "$t.c" >"$d/$t.c"
    "$CC" -pthread -I. -o "$d/$t" "$d/$t.c" liblmdb.a
  done
}

list_tests() { printf '%s\n' mtest mtest2 mtest3 mtest4 mtest5; }

# Then the package's own tools must agree on what the test left: mdb_stat
# reads it; mdb_dump's dump of it equals the dumps of its copy (mdb_copy),
# its compacting copy (mdb_copy -c) and of a database mdb_load loads from
# the dump. mtest writes the main DB, the others named sub-DBs (mdb_dump
# -a). The dump's mapaddr= line (where MDB_FIXEDMAP mapped it) is left out.
run_test() {
  [[ $1 =~ ^mtest[2-5]?$ ]] || die "no lmdb test '$1'"
  local tools=$PWD d=$out/mtest-seeded/$1.run all=-a db
  [[ $1 != mtest ]] || all=
  rm -rf "$d" && mkdir -p "$d"/{testdb,copy,compact,loaded}
  cd "$d"
  "../$1"
  "$tools/mdb_stat" $all testdb
  dump() { "$tools/mdb_dump" $all "$1" | grep -v '^mapaddr='; }
  dump testdb >testdb.dump
  grep -q '^HEADER=END' testdb.dump ||
    die "lmdb: $1: mdb_dump wrote no database"
  "$tools/mdb_copy" testdb copy
  "$tools/mdb_copy" -c testdb compact
  "$tools/mdb_load" -f testdb.dump loaded
  for db in copy compact loaded; do
    dump "$db" >"$db.dump"
    cmp testdb.dump "$db.dump" || die "lmdb: $1: the $db database differs"
  done
}
