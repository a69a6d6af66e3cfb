-- Metatables (arithmetic, comparison, __index chains, __newindex, __call,
-- __close), errors (error objects, pcall/xpcall, tracebacks), and the
-- garbage collector (weak tables, finalizers, full and generational
-- collections).
local V = {}
V.__index = V
V.__add = function(a, b) return setmetatable({x = a.x + b.x}, V) end
V.__eq = function(a, b) return a.x == b.x end
V.__lt = function(a, b) return a.x < b.x end
V.__tostring = function(a) return "V(" .. a.x .. ")" end
local function new(x) return setmetatable({x = x}, V) end
assert(new(1) + new(2) == new(3) and new(1) < new(2))
assert(tostring(new(4)) == "V(4)")
local base = {greet = function() return "hi" end}
local mid = setmetatable({}, {__index = base})
local obj = setmetatable({}, {__index = mid, __call = function(_, a) return a * 2 end})
assert(obj.greet() == "hi" and obj(21) == 42)
local log = {}
local guarded = setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = k; rawset(t, k, v) end})
guarded.a = 1; guarded.a = 2
assert(#log == 1 and guarded.a == 2)
local ok, err = pcall(error, {code = 7})
assert(not ok and err.code == 7)
ok, err = pcall(function() local x = nil; return x.y end)
assert(not ok and err:find("attempt to index"))
local tb
xpcall(function() error("deep") end, function(m) tb = debug.traceback(m) end)
assert(tb:find("deep") and tb:find("stack traceback"))
local closed = false
do
  local c <close> = setmetatable({}, {__close = function() closed = true end})
end
assert(closed)
local weak = setmetatable({}, {__mode = "k"})
local finalized = 0
for i = 1, 100 do
  weak[setmetatable({}, {__gc = function() finalized = finalized + 1 end})] = i
end
collectgarbage(); collectgarbage()
assert(next(weak) == nil and finalized == 100)
collectgarbage("generational")
local keep = {}
for i = 1, 200000 do local t = {i}; if i % 1000 == 0 then keep[#keep + 1] = t end end
collectgarbage("incremental")
collectgarbage()
assert(#keep == 200 and keep[200][1] == 200000)
print("objects ok")
