--- Trends of finite resources: a robust slope with its uncertainty, and the time to exhaustion.
--
-- The slope is Theil-Sen's (the median of the slopes between every pair of points), robust to
-- outliers; its confidence interval is Sen's, from the ranks of the pairwise slopes (the
-- distribution-free interval of Kendall's test: no assumption that the noise is normal). A
-- trend is real when the interval excludes zero, the points rise together (Kendall's tau), and
-- both halves of the points rise on their own, each at a quarter of the whole slope or more:
-- one step up (a file copied in one go) or a burst at one end of the window is not a trend, nor
-- is a series whose level jumps once by much of its rise. Never first-minus-last: one noisy end sample
-- would decide it.
local trend = {}

-- Two-sided normal quantiles for the confidence levels a check may ask for.
local Z = { [0.80] = 1.2816, [0.90] = 1.6449, [0.95] = 1.9600, [0.99] = 2.5758 }

--- Defaults; a caller may override any of them in opts.
trend.defaults = {
  level = 0.95,      -- confidence of the slope interval
  min_points = 5,    -- fewer points cannot separate a trend from noise
  min_tau = 0.5,     -- Kendall's tau: how consistently the points rise
  max_points = 240,  -- more are thinned to this many (pairs grow as n^2)
}

local function median_sorted(v)
  local n = #v
  if n == 0 then return nil end
  if n % 2 == 1 then return v[(n + 1) // 2] end
  return (v[n // 2] + v[n // 2 + 1]) / 2
end

-- Points in time order with finite values; thinned evenly to at most max points.
local function clean(ts, ys, max)
  local pts = {}
  for i = 1, math.min(#ts, #ys) do
    local t, y = ts[i], ys[i]
    if type(t) == "number" and type(y) == "number" and t == t and y == y
      and t > -math.huge and t < math.huge and y > -math.huge and y < math.huge then
      pts[#pts + 1] = { t = t, y = y }
    end
  end
  table.sort(pts, function(a, b) return a.t < b.t end)
  if #pts > max then
    local thin, step = {}, (#pts - 1) / (max - 1)
    for k = 0, max - 1 do thin[#thin + 1] = pts[math.floor(k * step + 0.5) + 1] end
    pts = thin
  end
  return pts
end

-- Sorted pairwise slopes of pts[a..b], and Kendall's S (rises minus falls) over those pairs.
local function pair_slopes(pts, a, b)
  local slopes, s = {}, 0
  for i = a, b - 1 do
    local pi = pts[i]
    for j = i + 1, b do
      local pj = pts[j]
      local dt = pj.t - pi.t
      if dt > 0 then
        local d = (pj.y - pi.y) / dt
        slopes[#slopes + 1] = d
        if d > 0 then s = s + 1 elseif d < 0 then s = s - 1 end
      end
    end
  end
  table.sort(slopes)
  return slopes, s
end

--- Fit ts (seconds) against ys. Returns a fit, or nil and why there is none.
-- fit: n, t_first, t_last, slope (units per second), lo and hi (the slope's interval at
-- opts.level), tau (Kendall), intercept (at t = 0), level (fitted at t_last), last (the last
-- value), real (the trend is real: see the top of this file), and why_not (when it is not).
function trend.fit(ts, ys, opts)
  opts = opts or {}
  local level = opts.level or trend.defaults.level
  local z = Z[level]
  if not z then error("trend.fit: level must be one of 0.80, 0.90, 0.95, 0.99", 2) end
  local pts = clean(ts, ys, opts.max_points or trend.defaults.max_points)
  local n = #pts
  local min_points = math.max(opts.min_points or trend.defaults.min_points, 3)
  if n < min_points then
    return nil, string.format("%d points: a trend needs at least %d", n, min_points)
  end
  if pts[n].t <= pts[1].t then return nil, "every point at the same time" end
  local slopes, s = pair_slopes(pts, 1, n)
  local npairs = #slopes
  local slope = median_sorted(slopes)
  -- Sen's interval: the ranks (N -+ C) / 2 of the sorted slopes, C = z * sd(S) under no trend.
  local c = z * math.sqrt(n * (n - 1) * (2 * n + 5) / 18)
  local r_lo = math.max(1, math.floor((npairs - c) / 2))
  local r_hi = math.min(npairs, math.ceil((npairs + c) / 2) + 1)
  local resid = {}
  for i = 1, n do resid[i] = pts[i].y - slope * pts[i].t end
  table.sort(resid)
  local intercept = median_sorted(resid)
  local fit = {
    n = n, t_first = pts[1].t, t_last = pts[n].t, slope = slope,
    lo = slopes[r_lo], hi = slopes[r_hi], tau = s / npairs,
    intercept = intercept, level = intercept + slope * pts[n].t, last = pts[n].y,
    first = pts[1].y, confidence = level,
  }
  local min_tau = opts.min_tau or trend.defaults.min_tau
  if fit.lo <= 0 then
    fit.why_not = string.format("the slope's %d%% interval includes zero or less", math.floor(level * 100 + 0.5))
  elseif fit.tau < min_tau then
    fit.why_not = string.format("the points do not rise consistently (Kendall's tau %.2f < %.2f)", fit.tau, min_tau)
  else
    -- Both halves must rise by themselves, each at a quarter of the whole slope or more: one
    -- step (flat, jump, flat) or a burst at one end leaves one half flat.
    local mid = (n + 1) // 2
    local first_half = median_sorted((pair_slopes(pts, 1, mid)))
    local second_half = median_sorted((pair_slopes(pts, mid, n)))
    local least = slope * (opts.min_half or 0.25)
    if not (first_half and first_half >= least and second_half and second_half >= least) then
      fit.why_not = "only part of the points rise (a step or a burst, not a steady trend)"
    else
      -- No level shift may carry much of the rise: the median residual (from the fitted line)
      -- after a point against the one before it. A noisy step passes the tests above (it is
      -- monotone), not this one; one wild sample moves no median.
      local rise = slope * (pts[n].t - pts[1].t)
      for k = 2, n - 2 do
        local before, after = {}, {}
        for i = 1, n do
          local r = pts[i].y - slope * pts[i].t
          if i <= k then before[#before + 1] = r else after[#after + 1] = r end
        end
        table.sort(before)
        table.sort(after)
        if median_sorted(after) - median_sorted(before) > (opts.max_shift or 0.4) * rise then
          fit.why_not = string.format("the level jumps between %.1f s and %.1f s: a step, not a steady trend",
            pts[k].t, pts[k + 1].t)
          break
        end
      end
    end
  end
  fit.real = fit.why_not == nil
  return fit
end

--- Time until a rising fit reaches capacity: { seconds, lo, hi (seconds, from the slope's
-- interval), rate (units per second), headroom, now } or nil and why. The level now is the last
-- observed one (what is left is what is left; a fit over days of audits can lag it either way);
-- the rate is the fit's. A level already at capacity gives seconds = 0, trend or not.
function trend.exhaustion(fit, capacity)
  if not fit then return nil, "no fit" end
  if not capacity or capacity <= 0 or capacity ~= capacity or capacity == math.huge then
    return nil, "no finite capacity"
  end
  local now = fit.last
  local headroom = capacity - now
  -- already out: whatever the shape of the way there (a rise that stopped at the limit is flat)
  if headroom <= 0 then
    return { seconds = 0, lo = 0, hi = 0, rate = fit.slope, headroom = 0, now = now, capacity = capacity }
  end
  if not fit.real then return nil, fit.why_not end
  return {
    seconds = headroom / fit.slope, lo = headroom / fit.hi, hi = headroom / fit.lo,
    rate = fit.slope, headroom = headroom, now = now, capacity = capacity,
  }
end

--- Fit and exhaustion in one call: ex (or nil), fit (or nil), why.
function trend.runout(ts, ys, capacity, opts)
  local fit, why = trend.fit(ts, ys, opts)
  if not fit then return nil, nil, why end
  local ex, why2 = trend.exhaustion(fit, capacity)
  return ex, fit, why2
end

--- The times and values of one field of a series (samples with t), for trend.fit.
function trend.points(series, field)
  local ts, ys = {}, {}
  for _, s in ipairs(series) do
    local v = s[field]
    if type(v) == "number" then
      ts[#ts + 1] = s.t
      ys[#ys + 1] = v
    end
  end
  return ts, ys
end

--- "40 s", "12 min", "3.5 h", "3 days": a duration for people.
function trend.duration(s)
  if s == nil or s ~= s then return "?" end
  if s == math.huge then return "never" end
  if s < 1 then return "now" end
  if s < 100 then return string.format("%.0f s", s) end
  if s < 100 * 60 then return string.format("%.0f min", s / 60) end
  if s < 48 * 3600 then
    local h = s / 3600
    return h < 10 and string.format("%.1f h", h) or string.format("%.0f h", h)
  end
  local d = s / 86400
  return d < 10 and string.format("%.1f days", d) or string.format("%.0f days", d)
end

--- "in about 40 s (25 to 70 s)", "now" when there is no headroom left, "within a second" when
-- less than one is left (a range's ends under a second read "1 s": "in about 2 s (1 to 5 s)").
function trend.when(ex)
  if ex.seconds <= 0 then return "now" end
  if ex.seconds < 1 then return "within a second" end
  local lo, hi = trend.duration(math.max(ex.lo, 1)), trend.duration(math.max(ex.hi, 1))
  if lo == hi then return "in about " .. trend.duration(ex.seconds) end
  -- one unit for both ends when they share it: "25 to 70 s"
  local lo_n, lo_u = lo:match("^([%d.]+) (.+)$")
  local hi_n, hi_u = hi:match("^([%d.]+) (.+)$")
  local range = (lo_u and lo_u == hi_u) and (lo_n .. " to " .. hi_n .. " " .. hi_u) or (lo .. " to " .. hi)
  return string.format("in about %s (%s)", trend.duration(ex.seconds), range)
end

--- The severity thresholds every exhaustion check takes (seconds left): its args table.
function trend.args(extra)
  local a = {
    crit_s = { type = "number", default = 600, help = "time to exhaustion (s) under which it is critical" },
    warn_s = { type = "number", default = 86400, help = "time to exhaustion (s) under which it warns" },
    confidence = { type = "number", default = 0.95, help = "confidence of the slope interval (0.8, 0.9, 0.95 or 0.99)" },
  }
  for k, v in pairs(extra or {}) do a[k] = v end
  return a
end

--- Report a time to exhaustion as a metric of the check (ok/warn/crit from args).
function trend.metric(ctx, name, ex, args, instance)
  ctx:metric(name, ex.seconds, { unit = "s", instance = instance, lower_is_worse = true, agg = "fit",
                                 warn = args.warn_s, crit = args.crit_s })
end

return trend
