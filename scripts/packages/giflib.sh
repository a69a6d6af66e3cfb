# giflib: upstream's plain Makefile, built by detection; this recipe is for
# eval only.
#
# Eval only: the Makefile's `all` ends with `$(MAKE) -C doc`, which needs
# xmlto (not installed; no artifact needs the manual pages), so eval makes
# the targets `all` builds before it: the libraries and every utility
# (the corpus build makes `all` with -k, which compiles the same sources).
if [[ ${flavour:-} == eval ]]; then
  make_args=("CC=$CC" "CXX=$CXX" libgif.so libgif.a libutil.so libutil.a
    gif2rgb gifbuild giffix giftext giftool gifclrmp gifbg gifcolor gifecho
    giffilter gifhisto gifinto gifsponge gifwedge)
fi

# Upstream's regression tests, tests/makefile: each target of its default
# `test` list runs utilities on the sample pictures (pic/*.gif) and
# compares their output with the check files in tests/ (RGB rendering,
# colour maps, text dumps, copies through giffilter/gifsponge/giftool,
# gifbuild round trips, giffix, gifecho, gifwedge), against the shared
# libgif.so of the build (its LD_LIBRARY_PATH). Two more:
#   gif2rgb-regress   not run: upstream leaves it out of `test`, and it
#                     fails with stock -Oz too (its check file expects
#                     "sort flag on")
#   gifinto-regress   upstream's only prints what went wrong and cannot
#                     fail; run_test makes its two checks
list_tests() {
  sed -n '/^test:/,/@echo/p' "$(package_source giflib)/tests/makefile" |
    grep -o '[a-z0-9]*-regress'
  echo gifinto-regress
}

# make's recipe lines run with `sh -e`: upstream's loop over the pictures
# has the status of its last picture only, and `diff ...; rm ...` that of
# rm, so without -e a wrong output before the last goes unnoticed.
run_test() {
  case $1 in
  gifinto-regress)
    # gifinto saves a GIF read on stdin to a file only when it is longer
    # than its threshold: a picture is saved byte for byte, a short input
    # is not saved. The utilities link the build's libgif.so, found as in
    # tests/makefile.
    local t=$out/gifinto
    export LD_LIBRARY_PATH=$PWD
    rm -rf "$t" && mkdir -p "$t"
    ./gifinto "$t/porsche.gif" <pic/porsche.gif
    cmp pic/porsche.gif "$t/porsche.gif"
    echo 0123456789 | ./gifinto "$t/short.gif" || true
    [[ ! -e $t/short.gif ]] || die "giflib: gifinto saved a short input"
    ;;
  *-regress)
    [[ $1 =~ ^[a-z0-9]+-regress$ ]] || die "no giflib test '$1'"
    make -C tests .SHELLFLAGS=-ec "$1"
    ;;
  *) die "no giflib test '$1'" ;;
  esac
}
