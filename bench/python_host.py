#!/usr/bin/env python3
"""A minimal interactive-protocol host in pure Python (stdlib only).

The baseline for bench/serve_throughput.sh: what a training script written
the way LLVM's own interactive_host.py is written costs per decision. It
answers every observation with the same advice, 1 by default (like
`mlgo serve --policy always`; --advice 0 is `--policy never`).

  python_host.py [--advice V] -- COMMAND...   ('{channel}' is the channel base)

Prints 'decisions=N elapsed=S host=H' on stderr, where host excludes the
time spent blocked waiting for the compiler's bytes.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

SIZES = {"float": 4, "double": 8, "int8_t": 1, "uint8_t": 1, "int16_t": 2,
         "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int64_t": 8,
         "uint64_t": 8}
FORMATS = {"float": "f", "double": "d", "int8_t": "b", "uint8_t": "B",
           "int16_t": "h", "uint16_t": "H", "int32_t": "i", "uint32_t": "I",
           "int64_t": "q", "uint64_t": "Q"}


def tensor_size(spec):
    n = 1
    for d in spec["shape"]:
        n *= d
    return n * SIZES[spec["type"]]


def main():
    argv = sys.argv[1:]
    value = 1
    if len(argv) >= 2 and argv[0] == "--advice":
        value = int(argv[1])
        argv = argv[2:]
    if argv and argv[0] == "--":
        argv = argv[1:]
    start = time.perf_counter()
    waiting = 0.0
    decisions = 0
    with tempfile.TemporaryDirectory(prefix="pyhost-") as tmp:
        base = os.path.join(tmp, "channel")
        os.mkfifo(base + ".in")
        os.mkfifo(base + ".out")
        proc = subprocess.Popen([a.replace("{channel}", base) for a in argv])
        # Same order as the compiler: inbound first, then outbound.
        to_compiler = open(base + ".in", "wb")
        from_compiler = open(base + ".out", "rb")

        def timed(fn, *args):
            nonlocal waiting
            t = time.perf_counter()
            r = fn(*args)
            waiting += time.perf_counter() - t
            return r

        header = json.loads(timed(from_compiler.readline))
        size = sum(tensor_size(f) for f in header["features"])
        advice = header["advice"]
        n = tensor_size(advice) // SIZES[advice["type"]]
        answer = struct.pack("=" + FORMATS[advice["type"]] * n, *([value] * n))
        while True:
            line = timed(from_compiler.readline)
            if not line:
                break
            event = json.loads(line)
            if "context" in event:
                continue
            data = timed(from_compiler.read, size + 1)
            if len(data) != size + 1:
                sys.exit("python_host: truncated observation")
            to_compiler.write(answer)
            to_compiler.flush()
            decisions += 1
        status = timed(proc.wait)
        to_compiler.close()
        from_compiler.close()
    elapsed = time.perf_counter() - start
    print(f"decisions={decisions} elapsed={elapsed:.6f} "
          f"host={elapsed - waiting:.6f}", file=sys.stderr)
    sys.exit(status)


if __name__ == "__main__":
    main()
