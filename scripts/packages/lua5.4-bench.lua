-- The lua5.4 recipe's benchmark (scripts/packages/lua5.4.sh): word counts of
-- the text file arg[1], the words sorted by count, and the table, string and
-- arithmetic work of bench/evict-callgrind.sh's script. Prints three lines.
local f = assert(io.open(arg[1], "rb"))
local text = f:read("a")
f:close()
local counts, words = {}, {}
for w in text:gmatch("[%a_][%w_]*") do
  local c = counts[w]
  if not c then words[#words + 1] = w end
  counts[w] = (c or 0) + 1
end
table.sort(words, function(a, b)
  if counts[a] ~= counts[b] then return counts[a] > counts[b] end
  return a < b
end)
print(#words, words[1], counts[words[1]])
local t, s = {}, 0
for i = 1, 200000 do t[i] = (i * 7919) % 1000003 end
table.sort(t)
for i = 1, #t do s = s + t[i] % 97 end
local parts = {}
for i = 1, 20000 do parts[#parts + 1] = string.format("%d:%x", i, t[i]) end
local joined = table.concat(parts, ",")
local n = 0
for w in joined:gmatch("%x+") do n = n + #w end
print(s, n)
print(string.format("%.6f", math.sqrt(s) * math.pi))
