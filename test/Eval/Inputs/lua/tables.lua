-- Tables: sort with and without a comparator, insert/remove/move/unpack,
-- the length of sequences, next/pairs over a large hash part, rehashing.
local t = {}
local seed = 12345
local function rand() seed = (seed * 1103515245 + 12345) % 2147483648; return seed end
for i = 1, 5000 do t[i] = rand() % 100000 end
table.sort(t)
for i = 2, #t do assert(t[i - 1] <= t[i]) end
table.sort(t, function(a, b) return a > b end)
for i = 2, #t do assert(t[i - 1] >= t[i]) end
local q = {1, 2, 3}
table.insert(q, 4); table.insert(q, 1, 0)
assert(table.concat(q, ",") == "0,1,2,3,4")
assert(table.remove(q) == 4 and table.remove(q, 1) == 0)
assert(table.concat(table.move({1, 2, 3}, 1, 3, 2, {9}), ",") == "9,1,2,3")
assert(select("#", table.unpack({1, nil, 3}, 1, 3)) == 3)
local h = {}
for i = 1, 20000 do h["k" .. i] = i end
local n, sum = 0, 0
for k, v in pairs(h) do n = n + 1; sum = sum + v end
assert(n == 20000 and sum == 20000 * 20001 // 2)
for i = 1, 20000, 2 do h["k" .. i] = nil end
n = 0
for _ in pairs(h) do n = n + 1 end
assert(n == 10000)
local p = table.pack(1, nil, 3)
assert(p.n == 3 and p[3] == 3)
print("tables ok")
