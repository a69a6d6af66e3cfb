#!/usr/bin/env python3
"""An independent reader of LLVM's training log (docs/training-log.md),
written from the format description and nothing of mlgo's: prints every
outcome as "<observation> <score name> <value>", a float with the fewest
digits that read back to the same float (as `mlgo log dump` prints it).

    read-log.py LOG
"""
import json
import struct
import sys

SIZES = {"float": ("f", 4), "double": ("d", 8), "int8_t": ("b", 1),
         "uint8_t": ("B", 1), "int16_t": ("h", 2), "uint16_t": ("H", 2),
         "int32_t": ("i", 4), "uint32_t": ("I", 4), "int64_t": ("q", 8),
         "uint64_t": ("Q", 8)}


def tensor_bytes(spec):
    n = 1
    for d in spec["shape"]:
        n *= d
    return n * SIZES[spec["type"]][1]


def shortest(raw, fmt, value):
    if fmt not in ("f", "d"):
        return str(value)
    for digits in range(1, 18):
        text = "%.*g" % (digits, value)
        if struct.pack("<" + fmt, float(text)) == raw:
            return text
    return repr(value)


def main():
    data = open(sys.argv[1], "rb").read()
    pos = data.index(b"\n")
    header = json.loads(data[:pos])
    pos += 1
    features = header["features"]
    score = header.get("score")
    obs_bytes = sum(tensor_bytes(f) for f in features)
    while pos < len(data):
        end = data.index(b"\n", pos)
        record = json.loads(data[pos:end])
        pos = end + 1
        if "context" in record:
            continue
        if "observation" in record:
            pos += obs_bytes
        elif "outcome" in record:
            fmt, size = SIZES[score["type"]]
            raw = data[pos:pos + size]
            (value,) = struct.unpack("<" + fmt, raw)
            print(record["outcome"], score["name"], shortest(raw, fmt, value))
            pos += tensor_bytes(score)
        else:
            sys.exit("unknown record %r" % record)
        if data[pos:pos + 1] != b"\n":
            sys.exit("no newline after tensor data at byte %d" % pos)
        pos += 1


main()
