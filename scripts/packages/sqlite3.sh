# sqlite3: built as Debian bookworm's debian/rules builds it: its configure
# with the package's options and its CFLAGS defines (the feature set of
# Debian's libsqlite3: FTS3/4/5, R-tree, JSON, session, ...), then `make`,
# which builds libsqlite3 (.so, and .a outside the corpus), the sqlite3
# shell linked against it, and libtclsqlite3. Like Debian's, the build is
# --disable-amalgamation: libsqlite3 is compiled from src/*.c, one module
# per file (upstream's default, the one sqlite3.c of 8.6 MB, is what
# Debian compiles only for its sqldiff and sqlite3_analyzer tools). Not
# taken from debian/rules: its -O2 (the wrappers' -Oz decides) and dpkg's
# hardening flags (the build is the compiler's -Oz and nothing else, as for
# every package here), and its static libsqlite3.a: --disable-static in
# both flavours (the corpus's one module per source file; in eval it halves
# a build of ~110 large modules, and the archive holds the shared
# library's code, compiled without -fPIC).
build_system=configure

sqlite3_defines=(-fno-strict-aliasing
  -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA
  -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS
  -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1
  -DSQLITE_ENABLE_UNLOCK_NOTIFY
  -DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB
  -DSQLITE_ALLOW_ROWID_IN_VIEW
  -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1
  -DSQLITE_ENABLE_LOAD_EXTENSION
  -DSQLITE_ENABLE_JSON1
  -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
  -DSQLITE_THREADSAFE=1
  -DSQLITE_ENABLE_FTS3_TOKENIZER=1
  -DSQLITE_USE_URI=1
  -DSQLITE_MAX_SCHEMA_RETRY=25
  -DSQLITE_ENABLE_PREUPDATE_HOOK
  -DSQLITE_ENABLE_SESSION
  -DSQLITE_ENABLE_STMTVTAB
  -DSQLITE_MAX_VARIABLE_NUMBER=250000)

build() {
  CC=$CC CFLAGS="$CFLAGS ${sqlite3_defines[*]}" LDFLAGS=-Wl,--as-needed \
    ./configure --prefix=/usr --enable-threadsafe --enable-load-extension \
    --enable-json --enable-fts4 --enable-fts5 --disable-amalgamation \
    --with-tcl=/usr/lib/x86_64-linux-gnu/tcl8.6 --disable-static
  run_make
}

# Debian's own test suite (`make test`, the Tcl testfixture) takes hours
# and links its own copy of the library, so it would not test the build's
# libsqlite3.so. Instead the built shell (libtool's wrapper, which runs it
# against .libs/libsqlite3.so) runs sqlite3-tests/NAME.sql and its output
# must equal NAME.expected, byte for byte. The expected outputs are Debian's
# own sqlite3 3.40.1 (built by GCC at -O2) on the same scripts.
list_tests() {
  local f
  for f in "$repo"/scripts/packages/sqlite3-tests/*.sql; do
    basename "$f" .sql
  done
}

run_test() {
  [[ $1 =~ ^[a-z0-9-]+$ ]] || die "no sqlite3 test '$1'"
  local dir=$repo/scripts/packages/sqlite3-tests tmp
  [[ -f $dir/$1.sql ]] || die "no sqlite3 test '$1'"
  tmp=$(mktemp -d)
  (cd "$tmp" && "$OLDPWD/sqlite3" -batch test.db <"$dir/$1.sql" >out.txt 2>&1) ||
    { cat "$tmp/out.txt" >&2; rm -rf "$tmp"; exit 1; }
  diff -u "$dir/$1.expected" "$tmp/out.txt" || { rm -rf "$tmp"; exit 1; }
  rm -rf "$tmp"
}
