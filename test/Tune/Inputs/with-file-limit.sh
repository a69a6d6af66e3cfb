#!/bin/bash
# with-file-limit.sh KIB COMMAND...: runs COMMAND with a file size limit
# of KIB KiB (bash's ulimit -f counts KiB; dash's, 512-byte blocks), as
# a full disk stands in for in the tests.
ulimit -f "$1"
shift
exec "$@"
