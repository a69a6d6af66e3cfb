-- utf8 library, os/io basics (temporary files, reading by lines and
-- numbers), load with custom environments, and string.dump round trips.
local s = utf8.char(72, 228, 8364, 128512)
assert(utf8.len(s) == 4 and #s == 1 + 2 + 3 + 4)
local cps = {}
for _, c in utf8.codes(s) do cps[#cps + 1] = c end
assert(cps[4] == 128512 and utf8.codepoint(s, utf8.offset(s, 3)) == 8364)
assert(utf8.len("\xff") == nil)
local name = os.tmpname()
local f = assert(io.open(name, "w"))
f:write("line one\n", 42, " ", 3.5, "\nlast")
f:close()
f = assert(io.open(name, "r"))
assert(f:read("l") == "line one")
assert(f:read("n") == 42 and f:read("n") == 3.5)
f:read("l")
assert(f:read("a") == "last")
f:close()
local n = 0
for l in io.lines(name) do n = n + 1 end
assert(n == 3)
os.remove(name)
local env = {x = 5}
local chunk = load("return x * 2", "chunk", "t", env)
assert(chunk() == 10)
local dumped = string.dump(function(a) return a .. "!" end)
assert(load(dumped, "d", "b")("hey") == "hey!")
assert(not load("return +", "bad"))
assert(os.time({year = 2000, month = 1, day = 1, hour = 12}) > 0)
assert(os.date("!%Y-%m-%d", 0) == "1970-01-01")
print("utf8io ok")
