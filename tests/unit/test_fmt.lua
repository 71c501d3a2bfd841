-- Cases for checks/lib/fmt.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local fmt = require("fmt")

local function is(got, want, name)
  tap.ok(got == want, name .. ": " .. tostring(got))
end

is(fmt.num(nil), "?", "nil")
is(fmt.num(42), "42", "an integer")
is(fmt.num(42.0), "42", "a whole float")
is(fmt.num(0.1234), "0.123", "a small fraction: 3 significant digits")
is(fmt.num(938.24), "938", "under 1000: 3 significant digits")
is(fmt.num(93773.1), "93.8k", "a rate of 93,773/s: 3 significant digits and an SI prefix, not 9.38e+04")
is(fmt.num(-2500.4), "-2.5k", "negative, the same")
is(fmt.num(1.5e15), "1.5P", "past 1e15 too: no exponent notation")

-- fmt.ms: microseconds as milliseconds in a table cell
is(fmt.ms(1250), "1.25", "1250 us: 1.25 ms")
is(fmt.ms(0), "0.00", "0 us")
is(fmt.ms(4), "0.00", "under 5 us rounds to 0.00 ms")
is(fmt.ms(nil), "-", "nil: a dash")
