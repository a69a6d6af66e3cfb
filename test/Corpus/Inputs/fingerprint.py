"""The fingerprint of the corpus at argv[1], computed from its files as
include/mlgo/Corpus/Fingerprint.h documents it: MD5 over each module's name,
a NUL and its content hash (MD5 of the bitcode followed by the .cmd file's
bytes), then, for each profile in package order, "profile", a NUL, the
package, a NUL and the MD5 of the profile's bytes."""
import hashlib
import json
import os
import sys

corpus = sys.argv[1]
d = json.load(open(os.path.join(corpus, "corpus_description.json")))
h = hashlib.md5()
for m in d["modules"]:
    base = os.path.join(corpus, m)
    content = open(base + ".bc", "rb").read() + open(base + ".cmd", "rb").read()
    h.update(m.encode() + b"\0" + hashlib.md5(content).hexdigest().encode())
for package in sorted(d.get("profiles", {})):
    data = open(os.path.join(corpus, d["profiles"][package]), "rb").read()
    h.update(b"profile\0" + package.encode() + b"\0" +
             hashlib.md5(data).hexdigest().encode())
print("fingerprint: " + h.hexdigest())
