-- Cases for checks/lib/hist.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local hist = require("hist")

local is = tap.is

-- a runqlat histogram in us: slot i counts [2^(i-1), 2^i), slot 1 also 0
local rq = { 0, 10, 40, 30, 15, 5 }
is(hist.count(rq), 100, "count sums the slots")
is(hist.count(nil), 0, "count of nil: 0")
is(hist.count({}), 0, "count of no slots: 0")
is(hist.percentile(rq, 50), 8.0, "p50: the 50th value ends the slot [4, 8)")
is(hist.percentile(rq, 30), 6.0, "p30: half way into [4, 8), interpolated")
is(hist.percentile(rq, 100), 64.0, "p100: the top of the last counted slot")
is(hist.percentile({ 4 }, 50), 1.0, "the first slot spans [0, 2)")
is(hist.percentile({ 0, 0 }, 99), nil, "nothing counted: nil")
is(hist.share_above(rq, 20), 0.2, "share at or above 20 us: the slots from [16, 32)")
is(hist.share_above(rq, 0), 1.0, "everything is at or above 0")
is(hist.share_above({}, 5), nil, "no counts: nil")

-- intervals: nil unless some interval counted something
is(hist.intervals(nil), nil, "no intervals")
is(hist.intervals({ counts = { { 0 }, {} } }), nil, "intervals that counted nothing")
local iv = { interval_ms = 1000, unit = "us", counts = { { 0, 2 }, {}, { 1, 1 } } }
is(hist.intervals(iv), iv, "intervals with counts")
local p = hist.interval_percentiles(iv, 50)
is(p[1], 3.0, "first interval's p50")
is(p[2], false, "an empty interval: false, the list keeps its length")
is(p[3], 2.0, "third interval's p50")

-- the evidence table: empty leading and trailing slots left out, units scaled
local t
local ctx = { table = function(_, x) t = x end }
hist.table(ctx, "Run queue latency", { 0, 0, 3, 0, 6, 0, 0 }, "us", "info")
is(#t.rows, 3, "rows from the first to the last counted slot")
is(t.rows[1][1], "4 us - 8 us", "a row's range with its unit")
is(t.rows[3][4], string.rep("#", 40), "the longest bar is 40 #")
is(t.rows[2][3], "0%", "an empty slot between counted ones stays, at 0%")
is(t.columns[1], "time (range)", "a time unit names the column time")
is(t.traced, "info", "the tool's info is passed on")
hist.table(ctx, "Sizes", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }, "us")
is(t.rows[1][1], "1.02 ms - 2.05 ms", "a bound of 1024 us reads in ms")
hist.table(ctx, "Nothing", {}, "KB")
is(#t.rows, 0, "no counts: no rows")
is(t.columns[1], "KB (range)", "another unit names itself")
