#!/bin/sh
# small-disk.sh SIZE DIR SAVED CMD...: runs CMD with DIR on a tmpfs of SIZE
# (a full disk for a test), then copies what DIR holds to SAVED and exits
# with CMD's status. Run it under `unshare -rm`: the mount is private to
# that namespace and goes away with it, root or not.
size=$1 dir=$2 saved=$3
shift 3
mount -t tmpfs -o "size=$size" tmpfs "$dir" || exit 125
[ -d "$saved.init" ] && cp -r "$saved.init/." "$dir"
status=0
"$@" || status=$?
mkdir -p "$saved"
cp -r "$dir/." "$saved"
exit $status
