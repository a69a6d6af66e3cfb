# The shipped configure/Makefile.in come from other autotools versions than
# bookworm's ("libtool: Version mismatch error" for every libarchive library
# source, "version mismatch. This is Automake 1.16.5" for libxml2); Debian
# regenerates them too (dh_autoreconf).
autoreconf=1
