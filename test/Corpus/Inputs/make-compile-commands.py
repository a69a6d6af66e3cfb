"""Prints a compile_commands.json for DIR: one entry per argument, each the
arguments after `clang -c -Oz -Xclang -fembed-bitcode=all`, the source file
first (as bear writes them)."""
import json
import sys

directory = sys.argv[1]
entries = []
for spec in sys.argv[2:]:
    args = spec.split()
    entries.append({
        "directory": directory,
        "file": args[0],
        "arguments": ["clang", "-c", "-Oz", "-Xclang", "-fembed-bitcode=all"]
                     + args,
    })
print(json.dumps(entries, indent=2))
