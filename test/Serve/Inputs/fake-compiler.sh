#!/bin/sh
# A misbehaving "compiler" speaking the interactive protocol by hand:
#   fake-compiler.sh BASE MODE
# opens BASE.in then BASE.out (the compiler's order), sends a header with one
# int64 feature, a context and one observation, reads the 8-byte advice, then
#   MODE=kill   kills itself with SIGKILL in the middle of observation 1
#   MODE=exit3  exits with status 3
#   MODE=stall  sleeps without sending anything
set -e
exec 3<"$1.in"
exec 4>"$1.out"
printf '{"features":[{"name":"x","type":"int64_t","port":0,"shape":[1]}],"advice":{"name":"decision","type":"int64_t","port":0,"shape":[1]}}\n{"context":""}\n{"observation":0}\n\001\000\000\000\000\000\000\000\n' >&4
head -c 8 <&3 >/dev/null
case "$2" in
  kill) printf '{"observation":1}\n\002\000' >&4; kill -9 $$ ;;
  exit3) exit 3 ;;
  stall) exec sleep 30 ;;
esac
