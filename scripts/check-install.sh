#!/usr/bin/env bash
# Checks that mlgo installs like real software (cmake/MLGOInstall.cmake,
# ./test.sh runs it, ~2 minutes):
#
#  1. `cmake --install BUILD-DIR --prefix P` into a fresh prefix puts every
#     file where the layout says, the plugin's old name a symlink;
#  2. the prefix, moved elsewhere, runs README.md's "Your own program, start
#     to finish" walkthrough (test/Eval/user-project.test, its inputs
#     copied out) with the build tree and the source tree both hidden -
#     an empty directory mounted over each in a private mount namespace,
#     or, where that is not allowed, the build tree renamed for the
#     duration - so an install that opened a file of either fails;
#     The Python package (when the build has it: python/CMakeLists.txt)
#     is installed too, and from the moved prefix, with both trees hidden,
#     the build's Python (/usr/bin/python3) imports it, finds the prefix's
#     plugin and programs and plays one InliningEnv episode on a corpus
#     the prefix's mlgo extracts; `pip install --no-build-isolation` of
#     BUILD-DIR/python (offline, into a --target directory) gives a copy
#     that works too;
#  3. `cpack -G DEB` makes a .deb that depends on Debian's LLVM 19;
#     `apt-get install ./mlgo_*.deb` (as root) installs it, /usr/bin/mlgo-clang
#     -Oz -c f.c gives the same object bytes as the build tree's mlgo-clang,
#     and `apt-get remove mlgo` removes it again. Skipped, and said so, when
#     not root or without apt-get.
#
#   scripts/check-install.sh BUILD-DIR
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:?usage: check-install.sh BUILD-DIR}" && pwd -P)"
lit=/usr/lib/llvm-19/build/utils/lit/lit.py
tmp="$(mktemp -d)"
moved_build=""
deb_installed=""
cleanup() {
  if [[ -n $moved_build ]]; then mv "$moved_build" "$build"; fi
  if [[ -n $deb_installed ]]; then
    apt-get remove -y mlgo >/dev/null 2>&1 || true
    dpkg --purge mlgo >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
say() { echo "check-install: $*"; }
die() { echo "check-install: error: $*" >&2; exit 1; }
case "$tmp/" in
  "$build"/* | "$src"/*) die "the temporary directory $tmp is inside the build or source tree" ;;
esac

# 1. The install and its layout.
version=$(sed -n 's/^project(mlgo VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
say "installing into a fresh prefix $tmp/prefix"
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; die "cmake --install failed"; }
for f in bin/mlgo bin/mlgo-clang bin/mlgo-clang++ lib/mlgo/mlgo-plugin.so lib/mlgo/lld/ld.lld \
         share/mlgo/models/inline-oz/model.json share/mlgo/models/inline-oz/README.md \
         share/mlgo/models/inline-oz/recipe.json share/mlgo/models/regalloc-evict/model.json \
         share/mlgo/scripts/eval-package.sh share/mlgo/scripts/eval-build.sh \
         share/mlgo/scripts/packages/list.tsv share/doc/mlgo/README.md \
         share/doc/mlgo/docs/plugin.md; do
  [[ -f $tmp/prefix/$f ]] || die "the install has no $f"
done
[[ ! -e $tmp/prefix/bin/mlgo-codegen ]] || die "mlgo-codegen is installed (only a build of mlgo needs it)"
[[ $(readlink "$tmp/prefix/lib/mlgo/MLGOInliner.so") == mlgo-plugin.so ]] ||
  die "lib/mlgo/MLGOInliner.so is not a symlink to mlgo-plugin.so"
cmp -s "$src/models/inline-oz/model.json" "$tmp/prefix/share/mlgo/models/inline-oz/model.json" ||
  die "the installed inline-oz model differs from models/inline-oz/model.json"
say "layout ok: bin/{mlgo,mlgo-clang,mlgo-clang++}, lib/mlgo/mlgo-plugin.so (+ MLGOInliner.so link), lib/mlgo/lld/ld.lld, share/mlgo/{models,scripts}, share/doc/mlgo"
pydir=lib/python3/dist-packages
python=$(sed -n 's/^MLGO_PYTHON:FILEPATH=//p' "$build/CMakeCache.txt")
have_python=""
if ls "$build"/python/mlgo/_core*.so >/dev/null 2>&1; then
  have_python=yes
  for f in __init__.py envs.py data.py model.py _paths.py _config.py \
           spaces.py gym.py checker.py datasets.py evaluation.py vector.py \
           data/packages.tsv data/tiny/alpha/table.c data/tiny/alpha/text.c \
           data/tiny/beta/stats.c; do
    [[ -f $tmp/prefix/$pydir/mlgo/$f ]] || die "the install has no $pydir/mlgo/$f"
  done
  ls "$tmp/prefix/$pydir"/mlgo/_core*.so >/dev/null 2>&1 || die "the install has no $pydir/mlgo/_core*.so"
  say "Python package installed in $pydir/mlgo (for $python)"
fi

# 2. Moved, and with the build and source trees out of reach.
mv "$tmp/prefix" "$tmp/moved"
prefix="$tmp/moved"
say "moved the prefix to $prefix"
mkdir -p "$tmp/src/test/Eval/Inputs" "$tmp/src/test/Train/Inputs" "$tmp/obj/test"
cp "$src/test/lit.cfg.py" "$tmp/src/test/"
cp "$src/test/Eval/user-project.test" "$tmp/src/test/Eval/"
cp -r "$src/test/Eval/Inputs/words" "$tmp/src/test/Eval/Inputs/"
cp -r "$src/test/Train/Inputs/alpha" "$src/test/Train/Inputs/beta" "$tmp/src/test/Train/Inputs/"
ln -s "$prefix/bin" "$tmp/obj/bin"
cat >"$tmp/obj/test/lit.site.cfg.py" <<EOF
# The walkthrough against the installed mlgo (scripts/check-install.sh).
import os
config.mlgo_src_root = "$tmp/src"
config.mlgo_obj_root = "$tmp/obj"
config.llvm_tools_dir = "/usr/lib/llvm-19/bin"
config.mlgo_plugin = "$prefix/lib/mlgo/mlgo-plugin.so"
config.mlgo_preload = ""
config.mlgo_mpi = ""
config.mlgo_mpiexec = ""
lit_config.load_config(config, os.path.join(config.mlgo_src_root, "test", "lit.cfg.py"))
EOF
# Everything runs with a PATH that has the moved prefix and the system only.
walk=(env "PATH=$prefix/bin:/usr/lib/llvm-19/bin:/usr/local/bin:/usr/bin:/bin"
      python3 "$lit" -v "$tmp/obj/test")
if unshare -m true 2>/dev/null; then
  say "running the README walkthrough (test/Eval/user-project.test) from $prefix/bin with empty directories mounted over $build and $src"
  # shellcheck disable=SC2016 # expanded by the inner shell
  unshare -m sh -c 'mount -t tmpfs mlgo-hidden "$1" && mount -t tmpfs mlgo-hidden "$2" && shift 2 && exec "$@"' \
    sh "$build" "$src" "${walk[@]}" >"$tmp/walk.log" 2>&1 ||
    { cat "$tmp/walk.log" >&2; die "the walkthrough failed from the installed tree"; }
else
  moved_build="$build.check-install-$$"
  say "no private mount namespace here: renaming $build to $moved_build for the walkthrough"
  mv "$build" "$moved_build"
  "${walk[@]}" >"$tmp/walk.log" 2>&1 ||
    { cat "$tmp/walk.log" >&2; die "the walkthrough failed from the installed tree"; }
  mv "$moved_build" "$build"
  moved_build=""
fi
grep -q "^PASS: mlgo :: Eval/user-project.test" "$tmp/walk.log" ||
  { cat "$tmp/walk.log" >&2; die "the walkthrough did not pass"; }
say "walkthrough passed from the installed tree"

# The Python package from the moved prefix, both trees hidden as above.
if [[ -n $have_python ]]; then
  cp "$src/test/Train/Inputs/make-corpus.sh" "$tmp/src/test/Train/Inputs/"
  {
    echo "import sys"
    echo "import mlgo"
    echo "assert mlgo.plugin_path() == '$prefix/lib/mlgo/mlgo-plugin.so', mlgo.plugin_path()"
    echo "assert mlgo.bin_dir() == '$prefix/bin', mlgo.bin_dir()"
    echo "with mlgo.InliningEnv(sys.argv[1]) as env:"
    echo "    env.reset(options={'module': 'beta/stats.o'})"
    echo "    n = 1"
    echo "    while not env.step(1)[2]:"
    echo "        n += 1"
    echo "assert n == 4, n"
    echo "print('python ok')"
  } >"$tmp/py-check.py"
  pycheck=(env "PATH=$prefix/bin:/usr/lib/llvm-19/bin:/usr/local/bin:/usr/bin:/bin"
           "PYTHONPATH=$prefix/$pydir" sh -c
           'sh "$1/src/test/Train/Inputs/make-corpus.sh" "$1/pycorpus" >/dev/null 2>&1 && "$2" "$1/py-check.py" "$1/pycorpus/corpus"'
           sh "$tmp" "$python")
  if unshare -m true 2>/dev/null; then
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare -m sh -c 'mount -t tmpfs mlgo-hidden "$1" && mount -t tmpfs mlgo-hidden "$2" && shift 2 && exec "$@"' \
      sh "$build" "$src" "${pycheck[@]}" >"$tmp/py.log" 2>&1 ||
      { cat "$tmp/py.log" >&2; die "the Python package failed from the installed tree"; }
  else
    moved_build="$build.check-install-$$"
    mv "$build" "$moved_build"
    "${pycheck[@]}" >"$tmp/py.log" 2>&1 ||
      { cat "$tmp/py.log" >&2; die "the Python package failed from the installed tree"; }
    mv "$moved_build" "$build"
    moved_build=""
  fi
  grep -qx "python ok" "$tmp/py.log" || { cat "$tmp/py.log" >&2; die "the Python check did not pass"; }
  say "$python imports mlgo from the moved prefix and plays an InliningEnv episode with its plugin"
  # pip, offline, of the built package directory (a copy elsewhere finds
  # the build tree's plugin by its absolute path).
  cp -r "$build/python" "$tmp/pip-src"
  "$python" -m pip install --no-build-isolation --no-deps --no-index --quiet \
    --target "$tmp/pip" "$tmp/pip-src" >"$tmp/pip.log" 2>&1 ||
    { cat "$tmp/pip.log" >&2; die "pip install --no-build-isolation $build/python failed"; }
  PYTHONPATH="$tmp/pip" "$python" -c "
import mlgo
assert mlgo.__file__.startswith('$tmp/pip/'), mlgo.__file__
assert mlgo.plugin_path() == '$build/lib/mlgo/mlgo-plugin.so', mlgo.plugin_path()
assert mlgo.Model.load('$src/models/inline-oz/model.json').name == 'inline-oz'
" || die "the package pip installed does not work"
  say "pip install --no-build-isolation $build/python (offline) works"
fi

# The moved install and the build tree compile alike, byte for byte.
f="$src/test/Train/Inputs/alpha/text.c"
"$build/bin/mlgo-clang" -Oz -c "$f" -o "$tmp/build.o"
"$prefix/bin/mlgo-clang" -Oz -c "$f" -o "$tmp/moved.o"
cmp "$tmp/build.o" "$tmp/moved.o" || die "the moved install's mlgo-clang -Oz gives other bytes than the build tree's"
"$prefix/bin/mlgo" --version >"$tmp/moved.version"
"$build/bin/mlgo" --version >"$tmp/build.version"
cmp "$tmp/build.version" "$tmp/moved.version" || die "mlgo --version differs between the build tree and the install"
say "mlgo-clang -Oz -c $(basename "$f") and mlgo --version: same from the moved install as from the build tree"

# 3. The .deb.
say "building the .deb (cpack -G DEB)"
(cd "$tmp" && cpack -G DEB -B "$tmp/deb" --config "$build/CPackConfig.cmake") >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log" >&2; die "cpack -G DEB failed"; }
deb=$(ls "$tmp"/deb/mlgo_"$version"_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for p in libllvm19 clang-19 llvm-19; do
  [[ ", $depends," == *", $p "* || ", $depends," == *", $p,"* ]] || die "$(basename "$deb") does not depend on $p: $depends"
done
[[ $(dpkg-deb -f "$deb" Version) == "$version" ]] || die "$(basename "$deb") is not version $version"
dpkg-deb -c "$deb" >"$tmp/deb.contents"
grep -q ' ./usr/lib/mlgo/MLGOInliner.so -> mlgo-plugin.so$' "$tmp/deb.contents" ||
  die "$(basename "$deb") has no ./usr/lib/mlgo/MLGOInliner.so symlink"
if [[ -n $have_python ]]; then
  # The Python package: for the interpreter the extension was built for,
  # with numpy; torch recommended (the PPO example); the examples shipped.
  pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  pynext=$("$python" -c 'import sys; print("%d.%d" % (sys.version_info[0], sys.version_info[1] + 1))')
  for p in "python3 (>= $pyver~)" "python3 (<< $pynext)" python3-numpy; do
    [[ ", $depends," == *", $p,"* || ", $depends," == *", $p "* ]] ||
      die "$(basename "$deb") does not depend on $p: $depends"
  done
  recommends=$(dpkg-deb -f "$deb" Recommends)
  [[ ", $recommends," == *", python3-torch,"* ]] ||
    die "$(basename "$deb") does not recommend python3-torch: $recommends"
  grep -q ' ./usr/lib/python3/dist-packages/mlgo/envs.py$' "$tmp/deb.contents" ||
    die "$(basename "$deb") has no ./usr/lib/python3/dist-packages/mlgo/envs.py"
  grep -q ' ./usr/share/doc/mlgo/examples/python/ppo_inline.py$' "$tmp/deb.contents" ||
    die "$(basename "$deb") ships no example (./usr/share/doc/mlgo/examples/python/ppo_inline.py)"
  say "$(basename "$deb"): Recommends: $recommends; the Python package in /usr/lib/python3/dist-packages, the examples in /usr/share/doc/mlgo/examples/python"
fi
say "$(basename "$deb"): Depends: $depends"
if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
  say "skipping apt-get install of the .deb (needs root and apt-get)"
  exit 0
fi
if [[ $(dpkg-query -W -f='${Status}' mlgo 2>/dev/null) == *" installed" ]]; then
  die "a package mlgo is installed already; remove it first (apt-get remove mlgo)"
fi
deb_installed=yes
apt-get install -y "$deb" >"$tmp/apt.log" 2>&1 ||
  { cat "$tmp/apt.log" >&2; die "apt-get install $(basename "$deb") failed"; }
say "installed $(basename "$deb") with apt-get"
(cd "$tmp" && /usr/bin/mlgo-clang -Oz -c "$f" -o "$tmp/deb.o")
cmp "$tmp/build.o" "$tmp/deb.o" || die "/usr/bin/mlgo-clang -Oz gives other bytes than the build tree's mlgo-clang"
/usr/bin/mlgo --version >"$tmp/deb.version"
cmp "$tmp/build.version" "$tmp/deb.version" || die "/usr/bin/mlgo --version differs from the build tree's"
say "/usr/bin/mlgo-clang -Oz -c $(basename "$f"): same bytes as the build tree's; /usr/bin/mlgo --version the same"
if [[ -n $have_python ]]; then
  (cd "$tmp" && "$python" -c "
import mlgo
assert mlgo.__file__ == '/usr/lib/python3/dist-packages/mlgo/__init__.py', mlgo.__file__
assert mlgo.plugin_path() == '/usr/lib/mlgo/mlgo-plugin.so', mlgo.plugin_path()
") || die "$python does not import the .deb's mlgo package from /usr/lib/python3/dist-packages"
  say "$python imports the .deb's mlgo package, which finds /usr/lib/mlgo/mlgo-plugin.so"
fi
apt-get remove -y mlgo >"$tmp/apt-remove.log" 2>&1 ||
  { cat "$tmp/apt-remove.log" >&2; die "apt-get remove mlgo failed"; }
deb_installed=""
dpkg --purge mlgo >/dev/null 2>&1 || true # forget it, not only remove it
[[ ! -e /usr/bin/mlgo-clang && ! -e /usr/lib/mlgo/mlgo-plugin.so ]] || die "apt-get remove mlgo left files behind"
say "removed the package; all install checks pass"
