-- Cases for checks/lib/runout.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local runout = require("runout")

local is = tap.is

local a = runout.args()
is(a.min_span_pct.default, 60, "args: min_span_pct")
is(a.horizon_x.default, 100, "args: horizon_x")

is(runout.level(1536, "bytes"), "1.5 KiB", "a level in bytes")
is(runout.level(41.6, "fds"), "42", "a count, rounded")
is(runout.rate(nil, "bytes"), "?", "no rate")
is(runout.rate(37748736, "bytes"), "36 MiB/s", "bytes per second")
is(runout.rate(0.05, "fds"), "3/min", "slow: per minute")
is(runout.rate(0.001, "fds"), "3.6/h", "slower: per hour")
is(runout.rate(250, "tasks"), "250/s", "fast: no decimals")
is(runout.audit_time({ when = 1795660800 }), "2026-11-26 02:40", "an audit's window end in UTC")
is(runout.audit_time({ when = 1795660800.9 }, true), "2026-11-26", "its day")

-- assess: a steady climb over the whole window runs out; a late-born instance is not fitted
local args = { confidence = 0.95, min_span_pct = 60, horizon_x = 100 }
local ctx = { window = { seconds = 10 } }
local ts, ys = {}, {}
for i = 0, 10 do ts[#ts + 1], ys[#ys + 1] = i, 100 + 10 * i end
local c = runout.assess(ctx, { name = "/srv", ts = ts, ys = ys, capacity = 400, unit = "bytes" }, args)
tap.ok(c.ex ~= nil, "a steady climb to the capacity runs out: " .. tostring(c.why))
is(c.ex and math.floor(c.ex.seconds + 0.5), 20, "200 left at 10/s: about 20 s")
tap.ok(runout.sentence(c, "full"):find("^/srv will be full in about 20 s") ~= nil, "the sentence: " .. runout.sentence(c, "full"))
local late = runout.assess(ctx, { name = "pid 7", ts = { 8, 9, 10 }, ys = { 1, 2, 3 }, capacity = 10 }, args)
is(late.fit, nil, "sampled over 2 s of 10: not fitted")
is(late.why, "sampled over 2.0 s of the 10.0 s window", "and says why")
local far = runout.assess(ctx, { name = "/home", ts = ts, ys = ys, capacity = 1e9, unit = "bytes" }, args)
is(far.ex, nil, "exhaustion over 100 times the span seen: not called")

-- across: the earlier audits of this boot, then the window's last level
local points = { { t = -7200, value = 50, same_boot = false, bundle = "a" }, { t = -3600, value = 80, same_boot = true, bundle = "b" } }
local w = { name = "fds", ts = { 0, 10 }, ys = { 90, 100 }, capacity = 1000 }
local long = runout.across(w, points, { reset_at_boot = true })
is(#long.ts, 2, "another boot's audit left out, this window's last level added")
is(long.grew, 20, "grew since the oldest audit used")
is(#w.other_boot, 1, "the audit left out is kept to name")
is(runout.across(w, {}, {}), nil, "no audits: nil")
is(runout.across({ name = "x", ts = {}, ys = {} }, points, {}), nil, "no level in the window: nil")
