# lmdb: upstream keeps its plain Makefile in libraries/liblmdb.
build_system=make
subdir=libraries/liblmdb
