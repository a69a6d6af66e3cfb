# libuv1: upstream's CMake build. Eval only: build_system=cmake, because
# the autotools build (tried first) needs the m4 file autogen.sh writes and
# fails; the corpus build falls back to CMake, so both build the same way.
if [[ ${flavour:-} == eval ]]; then
  build_system=cmake
fi

# Eval: upstream's test suite (test/test-list.h, ~400 tests; BUILD_TESTING
# builds its runner), each test through its own runner, `uv_run_tests
# NAME`, against the shared libuv.so.1 of the build: the runner spawns the
# test (and its helper processes), kills it at its timeout and exits with
# its status. Left out:
#   fs_copyfile                 runs as root here: copying onto a
#                               read-only file succeeds (wants UV_EACCES)
#   tcp_close_while_connecting  connects to 1.2.3.4 and wants it pending:
#                               needs a route to the internet
#   tcp_connect_timeout         connects to 8.8.8.8: likewise
#   fs_event_watch_dir_recursive, poll_close_doesnt_corrupt_stack,
#   poll_closesocket, spawn_quoted_path
#                               always skip on Linux (macOS, Windows)
#   getnameinfo_basic_ip6, udp_multicast_join, udp_multicast_join6
#                               Debian's patches make them skip
#   tty                         skips without a terminal, and tests run
#                               with none
# The names come from test/test-list.h through the preprocessor, so that
# its #ifdefs (Windows-only tests) apply as in the build.
list_tests() {
  local src
  src=$(package_source libuv1)
  printf '%s\n' '#include "runner.h"' '#undef TASK_LIST_START' \
    '#undef TASK_LIST_END' '#undef TEST_ENTRY' '#undef TEST_ENTRY_CUSTOM' \
    '#undef TEST_HELPER' '#define TASK_LIST_START' '#define TASK_LIST_END' \
    '#define TEST_ENTRY(n) mlgo_test: n' \
    '#define TEST_ENTRY_CUSTOM(n, h, s, t) mlgo_test: n' \
    '#define TEST_HELPER(t, n)' '#include "test-list.h"' |
    clang-19 -E -P -I"$src/include" -I"$src/test" -x c - |
    sed -n 's/^ *mlgo_test: \([a-z0-9_]*\).*/\1/p' |
    grep -v -x -e fs_copyfile -e tcp_close_while_connecting \
      -e tcp_connect_timeout -e fs_event_watch_dir_recursive \
      -e poll_close_doesnt_corrupt_stack -e poll_closesocket \
      -e spawn_quoted_path -e getnameinfo_basic_ip6 -e udp_multicast_join \
      -e udp_multicast_join6 -e tty
}

# As Debian's debian/rules runs them: no DNS requests (RES_OPTIONS), the
# runner's timeouts doubled for the time-sensitive tests. The runner
# refuses to run as root unless UV_RUN_AS_ROOT is set. A test that skips
# (the runner's status 7, "ok # SKIP" in its output) passes, as the
# runner counts it.
run_test() {
  [[ $1 =~ ^[a-z0-9_]+$ ]] || die "no libuv1 test '$1'"
  export RES_OPTIONS=attempts:0 UV_TEST_TIMEOUT_MULTIPLIER=2 UV_RUN_AS_ROOT=1
  local status=0
  mlgo-build/uv_run_tests "$1" || status=$?
  ((status == 0 || status == 7)) || exit "$status"
}
