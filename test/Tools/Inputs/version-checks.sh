#!/bin/sh
# Prints the FileCheck lines that `mlgo --version` must match (see
# ../version-format.test), every value worked out here from the sources and
# the system rather than asked of mlgo: the version from the top-level
# CMakeLists.txt, the LLVM version from llvm-config-19 (the libLLVM it loads
# and the one it was built against are both the installed one), and each
# embedded model's MD5 with md5sum. The commit is a pattern: a build may
# be older than the tree's last change.
# Usage: version-checks.sh SOURCE_DIR
set -eu
src=$1
version=$(sed -n 's/^project(mlgo VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
llvm=$(/usr/lib/llvm-19/bin/llvm-config --version)
md5() { md5sum <"$1" | cut -c1-32; }
test -n "$version"
test -n "$llvm"
cat <<END
CHECK:      mlgo version $version
CHECK-NEXT:   commit: {{([0-9a-f]{12}(-dirty)?|unknown)}}
CHECK-NEXT:   LLVM: $llvm at run time ({{/[^ ]+/libLLVM[^/ ]*\.so[^/ ]*}}), built against $llvm
CHECK-NEXT:   model inline-oz: md5 $(md5 "$src/models/inline-oz/model.json")
CHECK-NEXT:   model regalloc-evict: md5 $(md5 "$src/models/regalloc-evict/model.json")
CHECK-NEXT:   model ir2native: md5 $(md5 "$src/models/ir2native/model.json")
CHECK-NEXT:   model tune-ranker: md5 $(md5 "$src/models/tune-ranker/ranker.json")
CHECK-NOT:  {{.}}
END
