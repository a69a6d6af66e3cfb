#!/bin/sh
# hostile-peer.sh BASE MODE: a "compiler" that speaks the interactive
# protocol to `mlgo serve` as a hostile peer would, sending
#   MODE=huge-tensor      a header announcing a 1 TB feature tensor
#   MODE=endless-header   a header line that never ends
#   MODE=endless-record   a valid header and context, then an observation
#                         line that never ends
exec 3<"$1.in"
exec 4>"$1.out"
case "$2" in
  huge-tensor)
    printf '{"features":[{"name":"x","type":"float","port":0,"shape":[1000000000000]}],"advice":{"name":"decision","type":"int64_t","port":0,"shape":[1]}}\n' >&4
    exec sleep 30 ;;
  endless-header)
    printf '{"features":[{"name":"' >&4
    exec tr '\0' a </dev/zero >&4 ;;
  endless-record)
    printf '{"features":[{"name":"x","type":"int64_t","port":0,"shape":[1]}],"advice":{"name":"decision","type":"int64_t","port":0,"shape":[1]}}\n{"context":""}\n{"observation":' >&4
    exec tr '\0' 1 </dev/zero >&4 ;;
esac
