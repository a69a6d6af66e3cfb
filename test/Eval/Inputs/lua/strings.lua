-- String library: formatting, patterns, gsub with every replacement kind,
-- byte/char round trips, rep/reverse, and string.pack/unpack.
assert(string.format("%5.2f|%-4d|%x|%q", 3.14159, 42, 255, "a\nb") ==
       " 3.14|42  |ff|\"a\\\nb\"")
assert(("hello world"):find("o w") == 5)
assert(("key = value"):match("^(%w+)%s*=%s*(%w+)$") == "key")
local k, v = ("key = value"):match("^(%w+)%s*=%s*(%w+)$")
assert(v == "value")
assert(("abc"):gsub("%w", "%0%0") == "aabbcc")
assert(("hello"):gsub("l", {l = "L"}) == "heLLo")
assert(("a,b,,c"):gsub(",", function() return ";" end) == "a;b;;c")
local words = {}
for w in ("the quick brown fox"):gmatch("%a+") do words[#words + 1] = w end
assert(#words == 4 and words[3] == "brown")
local s = {}
for i = 0, 255 do s[#s + 1] = string.char(i) end
s = table.concat(s)
for i = 0, 255 do assert(s:byte(i + 1) == i) end
assert(("ab"):rep(3, "-") == "ab-ab-ab")
assert(("stressed"):reverse() == "desserts")
assert(("%bxy"):len() == 4 and ("(a(b)c)"):match("%b()") == "(a(b)c)")
local packed = string.pack("<i4 >i8 z s1", -2, 1 << 40, "zs", "len")
local a, b, c, d = string.unpack("<i4 >i8 z s1", packed)
assert(a == -2 and b == 1 << 40 and c == "zs" and d == "len")
assert(tostring(1e15) == "1e+15" and tostring(2^63) == "9.2233720368548e+18")
assert(string.format("%g", 0.1) == "0.1" and tonumber("0x1p4") == 16.0)
print("strings ok")
