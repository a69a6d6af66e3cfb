# redis: its plain Makefile, without jemalloc (vendored, not the program we
# want), TLS or systemd. Its own OPTIMIZATION variable would add -O2.
build_system=make
make_args=(MALLOC=libc "OPTIMIZATION=$OPT_FLAGS" "CFLAGS=$EMBED_FLAGS"
  BUILD_TLS=no USE_SYSTEMD=no "CC=$CC")
