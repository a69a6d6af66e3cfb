-- Closures, upvalues shared between closures, varargs, tail calls,
-- recursion and coroutines (generators, passing values both ways).
local function counter()
  local n = 0
  return function() n = n + 1; return n end, function() return n end
end
local inc, get = counter()
inc(); inc()
assert(get() == 2)
local function sum(...)
  local s = 0
  for i = 1, select("#", ...) do s = s + select(i, ...) end
  return s
end
assert(sum(1, 2, 3, 4) == 10)
local function loop(n, acc) if n == 0 then return acc end return loop(n - 1, acc + n) end
assert(loop(100000, 0) == 5000050000)
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
assert(fib(24) == 46368)
local gen = coroutine.wrap(function()
  for i = 1, 3 do coroutine.yield(i * i) end
  return "done"
end)
assert(gen() == 1 and gen() == 4 and gen() == 9 and gen() == "done")
local co = coroutine.create(function(a)
  local b = coroutine.yield(a + 1)
  local c = coroutine.yield(b * 2)
  return a + b + c
end)
local _, x = coroutine.resume(co, 10); assert(x == 11)
_, x = coroutine.resume(co, 5); assert(x == 10)
_, x = coroutine.resume(co, 1); assert(x == 16)
assert(coroutine.status(co) == "dead")
assert(not coroutine.resume(co))
print("functions ok")
