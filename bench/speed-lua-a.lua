-- Workload A of lua in the speed benchmarks (bench/speed-programs.sh): the
-- profile's input, unlike workload B (scripts/packages/lua5.4-bench.lua) in
-- what it runs. Reads the text file arg[1] line by line and reports on it:
-- line lengths, the identifiers per line kept in a queue of closures,
-- gsub with a function, a string buffer built and cut, integer and float
-- arithmetic in a small matrix product. Prints four lines.
local lines, longest, total = 0, 0, 0
local hist = {}
for line in io.lines(arg[1]) do
  lines = lines + 1
  local n = #line
  total = total + n
  if n > longest then longest = n end
  local bucket = n // 8
  hist[bucket] = (hist[bucket] or 0) + 1
end
print(lines, longest, total)

local f = assert(io.open(arg[1], "rb"))
local text = f:read("a")
f:close()
local queue, seen = {}, 0
for ident in text:gmatch("[%a_][%w_]*") do
  if #ident > 3 then
    queue[#queue + 1] = function() return ident:upper() end
  end
  if #queue > 64 then
    for i = 1, #queue do seen = seen + #queue[i]() end
    queue = {}
  end
end
local numbers = 0
local renamed = text:gsub("%d+", function(d)
  numbers = numbers + 1
  return tostring(#d)
end)
print(seen, numbers, #renamed)

local buf = {}
for i = 1, 30000 do buf[i] = string.rep(string.char(97 + i % 26), i % 7 + 1) end
local s = table.concat(buf)
local pieces = 0
for i = 1, #s - 16, 97 do
  if s:sub(i, i + 15):find("aa", 1, true) then pieces = pieces + 1 end
end
print(#s, pieces)

local n = 60
local a, b, c = {}, {}, {}
for i = 1, n do
  a[i], b[i], c[i] = {}, {}, {}
  for j = 1, n do
    a[i][j] = (i * j) % 17 + 0.5
    b[i][j] = (i + j) % 13 - 6
    c[i][j] = 0
  end
end
for i = 1, n do
  local ai, ci = a[i], c[i]
  for k = 1, n do
    local aik, bk = ai[k], b[k]
    for j = 1, n do ci[j] = ci[j] + aik * bk[j] end
  end
end
local trace = 0
for i = 1, n do trace = trace + c[i][i] end
print(string.format("%.3f", trace))
