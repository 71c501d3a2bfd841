-- Cases for checks/lib/trend.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local trend = require("trend")

local function near(got, want, tol, name)
  local good = type(got) == "number" and math.abs(got - want) <= tol
  tap.ok(good, name)
  if not good then tap.diag(string.format("got %s, want %s +- %s", tostring(got), tostring(want), tostring(tol))) end
end

-- Deterministic noise in [-1, 1): a linear congruential generator, so every run sees the same series.
local function noise(seed)
  local x = seed
  return function()
    x = (1103515245 * x + 12345) % 2147483648
    return 2 * x / 2147483648 - 1
  end
end

local function series(n, f)
  local ts, ys = {}, {}
  for i = 1, n do
    local t = i - 1
    ts[i], ys[i] = t, f(t, i)
  end
  return ts, ys
end

-- 1. a perfect line: slope, interval, level, time to exhaustion exact
do
  local ts, ys = series(11, function(t) return 100 + 2 * t end)
  local fit = trend.fit(ts, ys)
  near(fit.slope, 2, 1e-9, "line: slope 2")
  near(fit.lo, 2, 1e-9, "line: interval low 2")
  near(fit.hi, 2, 1e-9, "line: interval high 2")
  near(fit.tau, 1, 1e-9, "line: Kendall's tau 1")
  tap.ok(fit.real, "line: the trend is real")
  near(fit.level, 120, 1e-9, "line: fitted level 120 at t = 10")
  local ex = trend.exhaustion(fit, 200)
  near(ex.seconds, 40, 1e-9, "line: 80 left at 2/s is 40 s")
  near(ex.lo, 40, 1e-9, "line: no spread in the time")
  tap.ok(trend.when(ex) == "in about 40 s", "line: sentence '" .. trend.when(ex) .. "'")
end

-- 2. a line with noise: slope near the truth, the interval holds it, the time has a range
do
  local r = noise(7)
  local ts, ys = series(11, function(t) return 1000 + 5 * t + 3 * r() end)
  local fit = trend.fit(ts, ys)
  near(fit.slope, 5, 1, "noisy line: slope within 1 of 5")
  tap.ok(fit.lo < fit.slope and fit.slope < fit.hi, "noisy line: lo < slope < hi")
  tap.ok(fit.lo <= 5 and 5 <= fit.hi, "noisy line: the interval holds the true slope")
  tap.ok(fit.real, "noisy line: the trend is real")
  local ex = trend.exhaustion(fit, 2000)
  tap.ok(ex.lo < ex.seconds and ex.seconds < ex.hi, "noisy line: time has a range around its estimate")
  tap.ok(trend.when(ex):match("^in about [%d.]+ %a+ %(.+ to .+%)$") ~= nil, "noisy line: '" .. trend.when(ex) .. "'")
end

-- 3. flat: no trend
do
  local ts, ys = series(11, function() return 42 end)
  local fit = trend.fit(ts, ys)
  near(fit.slope, 0, 0, "flat: slope 0")
  tap.ok(not fit.real, "flat: not a trend (" .. tostring(fit.why_not) .. ")")
  tap.ok(trend.exhaustion(fit, 100) == nil, "flat: no time to exhaustion")
end

-- 4. noise around a level: no trend, over many seeds
do
  local real = 0
  for seed = 1, 200 do
    local r = noise(seed)
    local ts, ys = series(11, function() return 500 + 50 * r() end)
    if trend.fit(ts, ys).real then real = real + 1 end
  end
  tap.ok(real <= 4, string.format("pure noise: %d of 200 seeds called a trend (at most 4)", real))
end

-- 5. one step up (a file copied in one go): not a trend, wherever the step is, with or without noise
do
  local called = 0
  for at = 2, 9 do
    for seed = 0, 20 do
      local r = noise(seed + 1000 * at)
      local amp = seed == 0 and 0 or 2
      local ts, ys = series(11, function(t) return (t >= at and 100 or 0) + amp * r() end)
      if trend.fit(ts, ys).real then called = called + 1 end
    end
  end
  tap.ok(called == 0, string.format("steps: %d of 168 step series called a trend", called))
end

-- 6. churn: allocate and free (square wave), fill and delete (sawtooth): no trend
do
  local ts, ys = series(11, function(t) return t % 2 == 0 and 100 or 300 end)
  tap.ok(not trend.fit(ts, ys).real, "square wave: not a trend")
  ts, ys = series(11, function(t) return 100 + 50 * (t % 3) end)
  tap.ok(not trend.fit(ts, ys).real, "sawtooth of period 3: not a trend")
  ts, ys = series(21, function(t) return 100 + 40 * (t % 4) end)
  tap.ok(not trend.fit(ts, ys).real, "sawtooth of period 4 over 21 points: not a trend")
  local called = 0
  for seed = 1, 100 do
    local r = noise(seed)
    ts, ys = series(11, function() return 1e6 + (r() > 0 and 2e5 or 0) + 1e4 * r() end)
    if trend.fit(ts, ys).real then called = called + 1 end
  end
  tap.ok(called <= 2, string.format("random churn: %d of 100 seeds called a trend (at most 2)", called))
end

-- 7. a burst at the end of the window (a build's link step): not a steady trend
do
  local ts, ys = series(11, function(t) return t < 7 and 100 or 100 + 80 * (t - 6) end)
  local fit = trend.fit(ts, ys)
  tap.ok(not fit.real, "late burst: not a steady trend (" .. tostring(fit.why_not) .. ")")
end

-- 8. too few points
do
  local fit, why = trend.fit({ 0, 1, 2 }, { 1, 2, 3 })
  tap.ok(fit == nil and why:match("3 points"), "three points: no fit (" .. tostring(why) .. ")")
  fit, why = trend.fit({ 0, 0, 0, 0, 0 }, { 1, 2, 3, 4, 5 })
  tap.ok(fit == nil, "five points at one time: no fit (" .. tostring(why) .. ")")
  fit = trend.fit({ 0, 1, 2, 3, 4 }, { 1, 0 / 0, 3, 4, 5 })
  tap.ok(fit == nil, "a NaN value is dropped, leaving too few points")
end

-- 9. one wild outlier does not move a robust slope
do
  local ts, ys = series(11, function(t) return t == 5 and 1e9 or 10 + t end)
  local fit = trend.fit(ts, ys)
  near(fit.slope, 1, 1e-9, "outlier: slope still 1")
  tap.ok(fit.real, "outlier: still a trend")
end

-- 10. shrinking: no exhaustion
do
  local ts, ys = series(11, function(t) return 100 - 3 * t end)
  local fit = trend.fit(ts, ys)
  tap.ok(not fit.real and fit.hi < 0, "falling: not a rising trend")
end

-- 11. already full, no capacity
do
  local ts, ys = series(11, function(t) return 90 + t end)
  local fit = trend.fit(ts, ys)
  local ex = trend.exhaustion(fit, 95)
  tap.ok(ex.seconds == 0 and trend.when(ex) == "now", "at capacity: now")
  tap.ok(trend.exhaustion(fit, nil) == nil, "no capacity: nil")
  tap.ok(trend.exhaustion(fit, math.huge) == nil, "unlimited capacity: nil")
  -- a rise that stopped at the limit: flat now, but out
  ts, ys = series(11, function(t) return math.min(100, 60 + 10 * t) end)
  fit = trend.fit(ts, ys)
  ex = trend.exhaustion(fit, 100)
  tap.ok(ex and ex.seconds == 0, "at the limit after a rise that stopped there: now")
  -- under a second left: never "in about now"
  local w = trend.when({ seconds = 0.4, lo = 0.2, hi = 0.9 })
  tap.ok(w == "within a second", "0.4 s left: within a second (got " .. w .. ")")
  w = trend.when({ seconds = 2, lo = 0.5, hi = 5 })
  tap.ok(w == "in about 2 s (1 to 5 s)", "a range from under a second (got " .. w .. ")")
end

-- 12. thousands of points are thinned, the slope stays exact
do
  local ts, ys = series(5000, function(t) return 7 + 0.25 * t end)
  local fit = trend.fit(ts, ys)
  near(fit.slope, 0.25, 1e-12, "5000 points: slope 0.25")
  tap.ok(fit.n == trend.defaults.max_points, "5000 points thinned to " .. fit.n)
end

-- 13. across runs: one point a day and the window now
do
  local day = 86400
  local ts = { -3 * day, -2 * day, -1 * day, 0 }
  local ys = { 40e9, 44.1e9, 48e9, 52.2e9 }
  local fit = trend.fit(ts, ys, { min_points = 4 })
  tap.ok(fit and fit.real, "daily points: a real trend")
  local ex = trend.exhaustion(fit, 64e9)
  near(ex.seconds / day, 3, 0.3, "daily points: full in about 3 days")
  tap.ok(trend.duration(ex.seconds):match("days$") ~= nil, "daily points: '" .. trend.duration(ex.seconds) .. "'")
end

-- 14. durations for people
do
  tap.ok(trend.duration(40) == "40 s", "40 s")
  tap.ok(trend.duration(720) == "12 min", "12 min")
  tap.ok(trend.duration(3.5 * 3600) == "3.5 h", "3.5 h")
  tap.ok(trend.duration(3 * 86400) == "3.0 days", "3.0 days")
  tap.ok(trend.when({ seconds = 40, lo = 25, hi = 70 }) == "in about 40 s (25 to 70 s)", "40 s (25 to 70 s)")
  tap.ok(trend.when({ seconds = 300, lo = 90, hi = 900 }) == "in about 5 min (90 s to 15 min)",
    trend.when({ seconds = 300, lo = 90, hi = 900 }))
end

-- 15. a level other than 95% widens or narrows the interval; a bad one is an error
do
  local r = noise(3)
  local ts, ys = series(11, function(t) return 5 * t + 4 * r() end)
  local f90 = trend.fit(ts, ys, { level = 0.90 })
  local f99 = trend.fit(ts, ys, { level = 0.99 })
  tap.ok(f99.lo <= f90.lo and f99.hi >= f90.hi, "99% interval holds the 90% one")
  tap.ok(not pcall(trend.fit, ts, ys, { level = 0.5 }), "level 0.5 is refused")
end

-- 16. runout.assess: a trend seen for 10 s is not extrapolated past horizon_x times that
do
  local runout = require("runout")
  local ctx = { window = { seconds = 10 } }
  local args = { confidence = 0.95, min_span_pct = 60, horizon_x = 100 }
  local ts, ys = series(11, function(t) return 1000 + 10 * t end)
  local near_c = runout.assess(ctx, { name = "a", ts = ts, ys = ys, capacity = 1100 + 5000 }, args)
  tap.ok(near_c.ex ~= nil, "500 s ahead of a 10 s trend: called (" .. tostring(near_c.why) .. ")")
  local far = runout.assess(ctx, { name = "b", ts = ts, ys = ys, capacity = 1100 + 50000 }, args)
  tap.ok(far.ex == nil and far.fit and far.fit.real, "5000 s ahead of a 10 s trend: fitted, not called")
  tap.ok(far.why and far.why:match("too far ahead"), "and it says why (" .. tostring(far.why) .. ")")
  args.horizon_x = 1000
  far = runout.assess(ctx, { name = "b", ts = ts, ys = ys, capacity = 1100 + 50000 }, args)
  tap.ok(far.ex ~= nil, "horizon_x 1000: called")
end

-- 17. runout.across: earlier audits continue a level; a level a reboot resets takes this boot's only
do
  local runout = require("runout")
  local ctx = { window = { seconds = 10 } }
  local args = { confidence = 0.95, min_span_pct = 60, horizon_x = 100 }
  local day = 86400
  local flat_ts, flat_ys = series(11, function() return 7000 end)
  local function audits(boots)
    local pts = {}
    for i, same in ipairs(boots) do
      pts[i] = { t = -(#boots - i + 1) * day, value = 7000 - (#boots - i + 1) * 1000, bundle = "b" .. i,
                 when = 1763700000 - (#boots - i + 1) * day, same_boot = same }
    end
    return pts
  end
  local w = runout.assess(ctx, { name = "host memory", instance = "host", ts = flat_ts, ys = flat_ys,
    capacity = 8000, unit = "", verb = "exhausted" }, args)
  tap.ok(w.ex == nil, "flat window: no time of its own")
  local long = runout.assess(ctx, runout.across(w, audits({ true, true, true }), { reset_at_boot = true }), args)
  near(long.ex and long.ex.seconds, day, 5, "three audits of this boot, 1000 a day, 1000 left: a day (the window ends 10 s after the last)")
  near(long.grew, 3000, 1e-9, "it grew 3000 since the oldest audit")
  tap.ok(long.oldest.bundle == "b1", "the oldest audit is named")
  tap.ok(runout.grew_sentence(long):match("^host memory grew 3000 since the audit of "), "the sentence: " ..
    runout.grew_sentence(long))

  -- the oldest audit of another boot: left out of a reset-at-boot level, so three points: no trend
  w.audits, w.other_boot = nil, nil
  long = runout.assess(ctx, runout.across(w, audits({ false, true, true }), { reset_at_boot = true }), args)
  tap.ok(long.ex == nil and long.fit == nil, "an audit of another boot left out: too few points")
  tap.ok(#w.other_boot == 1 and w.other_boot[1].bundle == "b1", "the one left out is named")
  -- a level that survives a reboot (a file system's) keeps it
  long = runout.assess(ctx, runout.across(w, audits({ false, true, true })), args)
  tap.ok(long.ex ~= nil and #w.other_boot == 0, "a level that survives a reboot keeps every audit")
  -- every audit of another boot: no long candidate at all
  tap.ok(runout.across(w, audits({ false, false, false }), { reset_at_boot = true }) == nil,
    "every audit of another boot: no trend across runs")

  -- where this window's own trend is real, it decides
  local ts, ys = series(11, function(t) return 7000 + 5 * t end)
  local rising = runout.assess(ctx, { name = "host memory", instance = "host", ts = ts, ys = ys, capacity = 8000,
    unit = "" }, args)
  tap.ok(rising.ex ~= nil, "rising window: a time of its own (" .. tostring(rising.why) .. ")")
  long = runout.assess(ctx, runout.across(rising, audits({ true, true, true }), { reset_at_boot = true }), args)
  tap.ok(long.ex == nil and long.why:match("this window's own trend decides"), "the long trend gives way: " ..
    tostring(long.why))
end
