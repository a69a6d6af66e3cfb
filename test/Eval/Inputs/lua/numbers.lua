-- Integer and float arithmetic: wraparound, floor division and modulo with
-- negative operands, bitwise operators, conversions, math library.
assert(math.maxinteger + 1 == math.mininteger)
assert(7 // -2 == -4 and 7 % -2 == -1 and -7 // 2 == -4 and -7 % 2 == 1)
assert(7.0 // 2 == 3.0 and 5.5 % 2 == 1.5)
assert((0xF0 | 0x0F) == 0xFF and (0xFF & 0x3C) == 0x3C and (0xFF ~ 0x0F) == 0xF0)
assert((1 << 62) >> 61 == 2 and ~0 == -1 and (-1 >> 1) == math.maxinteger)
assert(math.type(1) == "integer" and math.type(1.0) == "float")
assert(math.tointeger(3.0) == 3 and math.tointeger(3.5) == nil)
assert(3 == 3.0 and math.ult(1, -1))
assert(math.floor(-3.5) == -4 and math.ceil(-3.5) == -3)
assert(math.abs(math.sin(math.pi)) < 1e-15 and math.sqrt(2) ^ 2 - 2 < 1e-15)
assert(math.fmod(-7, 3) == -1 and math.huge > 1e308 and -math.huge < -1e308)
assert(tostring(0/0) ~= tostring(0/0) or (0/0) ~= (0/0))
local s = 0
for i = 1, 1000000 do s = s + i * i % 7 end
assert(s == 1999999)
local f = 0.0
for i = 1, 1000 do f = f + 0.001 end
assert(math.abs(f - 1.0) < 1e-12)
assert(string.format("%.17g", 0.1 + 0.2) == "0.30000000000000004")
assert(tonumber("  10  ") == 10 and tonumber("z", 36) == 35 and tonumber("1e2") == 100.0)
print("numbers ok")
