"""Prints a decisions-file eviction entry for the first decision of FUNCTION
in an eviction training log (-mlgo-evict-training-log) that answers a column
LLVM masks there: the entry's hash is the decision's own (64-bit FNV-1a over
the bytes of every feature LLVM sent, docs/decisions.md), so the entry
applies, and its answer is one LLVM does not allow.

    python3 masked-entry.py LOG FUNCTION
"""
import json
import struct
import sys

SIZES = {"int64_t": 8, "float": 4, "double": 8, "int32_t": 4, "int8_t": 1,
         "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "uint32_t": 4,
         "uint64_t": 8}


def main(path, function):
    data = open(path, "rb").read()
    at = data.index(b"\n")
    header = json.loads(data[:at])
    # The log records the advice as its last feature; LLVM sent the others.
    specs = header["features"][:-1]
    sizes = []
    for s in specs:
        n = 1
        for d in s["shape"]:
            n *= d
        sizes.append(n * SIZES[s["type"]])
    total = sum(sizes) + SIZES[header["features"][-1]["type"]]
    at += 1
    context = None
    while at < len(data):
        end = data.index(b"\n", at)
        record = json.loads(data[at:end])
        at = end + 1
        if "context" in record:
            context = record["context"]
            continue
        if "observation" not in record:
            continue
        body = data[at:at + total]
        at += total + 1
        if context != function or record["observation"] != 0:
            continue
        h = 14695981039346656037
        offset = 0
        mask = None
        for s, size in zip(specs, sizes):
            for byte in body[offset:offset + size]:
                h ^= byte
                h = (h * 1099511628211) % (1 << 64)
            if s["name"] == "mask":
                mask = struct.unpack("<%dq" % (size // 8),
                                     body[offset:offset + size])
            offset += size
        column = mask.index(0)
        print("evict %s 0 %016X %d" % (function, h, column))
        return 0
    print("no decision of %s" % function, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
