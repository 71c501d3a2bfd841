--- What every exhaustion check shares: fitting each instance of a finite resource (trend.lua),
-- its time to exhaustion as a metric with the severity from the time left, the table of
-- trends, and the sentences ("/srv will be full in about 40 s (25 to 70 s) at 36 MiB/s").
local trend = require("trend")
local fmt = require("fmt")
local cgroups = require("cgroups")

local runout = {}

--- The args every exhaustion check takes (trend.args) plus min_span_pct.
function runout.args(extra)
  local a = trend.args(extra)
  a.min_span_pct = { type = "number", default = 60,
    help = "an instance's samples must span this % of the window for a trend (a process born late has too few)" }
  a.horizon_x = { type = "number", default = 100,
    help = "a time to exhaustion further ahead than this many times the span the trend was seen over is not called" }
  return a
end

--- A level in its unit: bytes, or a count.
function runout.level(v, unit)
  if unit == "bytes" then return fmt.bytes(v) end
  return fmt.num(math.floor(v + 0.5))
end

--- A rate in its unit per second (per minute or hour when slow).
function runout.rate(r, unit)
  if r == nil then return "?" end
  local per, x = "s", r
  if math.abs(x) < 0.1 then per, x = "min", x * 60 end
  if math.abs(x) < 0.1 then per, x = "h", x * 60 end
  if unit == "bytes" then return fmt.bytes(x) .. "/" .. per end
  return units.num(x) .. "/" .. per
end

--- Fit candidate c = { name, instance, ts, ys, capacity, unit } with args; sets c.fit, c.ex, c.why.
-- A candidate whose samples span less than min_span_pct of the window is not fitted. A time to
-- exhaustion more than horizon_x times the span of the fit ahead is not called: five seconds of a
-- build's writes say nothing of the next day (earlier audits in --out give a span that does).
function runout.assess(ctx, c, args)
  local span = #c.ts >= 2 and (c.ts[#c.ts] - c.ts[1]) or 0
  local need = (args.min_span_pct or 60) / 100 * (ctx.window.seconds or 0)
  if not c.long and span < need then
    c.why = string.format("sampled over %.1f s of the %.1f s window", span, ctx.window.seconds)
    return c
  end
  c.fit, c.why = trend.fit(c.ts, c.ys, { level = args.confidence, min_points = c.min_points })
  if c.fit then c.ex, c.why = trend.exhaustion(c.fit, c.capacity) end
  local seen = c.fit and (c.fit.t_last - c.fit.t_first) or 0
  if c.ex and c.ex.seconds > (args.horizon_x or 100) * seen then
    c.why = string.format("%s at this rate, over %d times the %s it was seen for: too far ahead to call",
      trend.when(c.ex), args.horizon_x or 100, trend.duration(seen))
    c.ex = nil
  end
  -- across runs: where this window's own trend is real, it decides (assessed first: runout.across)
  if c.long and c.window and c.window.ex and c.ex then
    c.why = "this window's own trend decides: " .. trend.when(c.window.ex)
    c.ex = nil
  end
  return c
end

--- Across runs: the candidate of c's level over the earlier audits of this host in --out and this
-- window's last level, or nil. points: ctx.history(metric)[c.instance] (oldest first). A level a
-- reboot resets (memory, swap, file descriptors, tasks, conntrack entries: opts.reset_at_boot)
-- takes only the audits of this boot: the level of another boot is no point of this one's trend;
-- a file system's use survives a reboot. The long candidate (c.long) needs four points (three
-- audits and this window); c.window is the window's own candidate, whose trend, where it is real,
-- decides (runout.assess). opts.base: fields shared through __index (a mount's device, ...).
-- Sets c.audits (every point, for runout.audits) and c.other_boot (those left out).
function runout.across(c, points, opts)
  opts = opts or {}
  if not points or #points == 0 or #c.ys == 0 then return nil end
  local used, other = {}, {}
  for _, p in ipairs(points) do
    if p.same_boot or not opts.reset_at_boot then used[#used + 1] = p else other[#other + 1] = p end
  end
  c.audits, c.other_boot = points, other
  if #used == 0 then return nil end
  local lts, lys = {}, {}
  for _, p in ipairs(used) do lts[#lts + 1], lys[#lys + 1] = p.t, p.value end
  lts[#lts + 1], lys[#lys + 1] = c.ts[#c.ts], c.ys[#c.ys]
  return setmetatable({ name = c.name .. " (since earlier audits)", subject = c.subject or c.name,
    instance = c.instance, ts = lts, ys = lys, capacity = c.capacity, unit = c.unit, verb = c.verb, long = true,
    min_points = 4, label = c.name, oldest = used[1], used = used, grew = c.ys[#c.ys] - used[1].value,
    window = c }, { __index = opts.base })
end

--- "2026-11-20 04:40": an audit's window end (UTC).
function runout.audit_time(p, day_only)
  return os.date(day_only and "!%Y-%m-%d" or "!%Y-%m-%d %H:%M", math.floor(p.when))
end

--- "/var grew 45.0 GiB since the audit of 2026-11-18: full in about 7 h (6 to 24 h)" for a long
-- candidate that runs out.
function runout.grew_sentence(c)
  return string.format("%s grew %s since the audit of %s: %s %s", c.subject, runout.level(c.grew, c.unit),
    runout.audit_time(c.oldest, true), c.verb or "exhausted", trend.when(c.ex))
end

--- The notes of the trends across runs: a long candidate that does not run out says how much its
-- level grew since which audit and why no time is called; the audits of another boot a level
-- that a reboot resets left out are named.
function runout.across_notes(ctx, cands)
  for _, c in ipairs(cands) do
    if c.long and not c.ex then
      ctx:note(string.format("%s grew %s since the audit of %s (%s); %s", c.label, runout.level(c.grew, c.unit),
        runout.audit_time(c.oldest), c.oldest.bundle,
        c.fit and ("no steady trend: " .. (c.why or "?")) or ("too few audits for a trend: " .. (c.why or "?"))))
    end
    if c.other_boot and #c.other_boot > 0 then
      local names = {}
      for _, p in ipairs(c.other_boot) do names[#names + 1] = p.bundle end
      ctx:note(string.format("%s: %d earlier audit%s of another boot left out (a reboot resets it): %s", c.name,
        #c.other_boot, #c.other_boot == 1 and "" or "s", table.concat(names, ", ")))
    end
  end
end

--- The table of the earlier audits each window candidate's level was continued from (c.audits:
-- runout.across), naming the bundles; nothing when none.
function runout.audits(ctx, cands)
  local rows = {}
  for _, c in ipairs(cands) do
    for _, p in ipairs(not c.long and c.audits or {}) do
      rows[#rows + 1] = { p.bundle, runout.audit_time(p), c.name, runout.level(p.value, c.unit),
        p.same_boot and "yes" or (c.other_boot and #c.other_boot > 0 and "no (left out)" or "no") }
    end
  end
  if #rows > 0 then
    ctx:table { title = "Earlier audits of this host (raw/history.cap)",
                columns = { "bundle", "window end (UTC)", "resource", "level then", "same boot" }, rows = rows }
  end
end

--- "/srv will be full in about 40 s (25 to 70 s) at 36.0 MiB/s" (c.subject, else c.name)
function runout.sentence(c, verb)
  return string.format("%s will be %s %s at %s", c.subject or c.name, verb or "exhausted", trend.when(c.ex),
    runout.rate(c.ex.rate, c.unit))
end

--- Order: the shortest time to exhaustion first; unfitted last.
local function by_time(a, b)
  local ta = a.ex and a.ex.seconds or math.huge
  local tb = b.ex and b.ex.seconds or math.huge
  if ta ~= tb then return ta < tb end
  local sa = a.fit and a.fit.slope or -math.huge
  local sb = b.fit and b.fit.slope or -math.huge
  if sa ~= sb then return sa > sb end
  return a.name < b.name
end

--- Report the assessed candidates: metric time_left_s (instance) for each one running out, the
-- table of the rising ones (and the fullest when none rises), and the known unknown of why no
-- trend was called when the window was too short for any fit (one process seen in too few rounds,
-- when the others were fitted, does not make the whole check unknown). Returns the running-out
-- ones, soonest first.
function runout.report(ctx, cands, args, title)
  table.sort(cands, by_time)
  local out, rows, nofit, fitted = {}, {}, nil, false
  for _, c in ipairs(cands) do
    if c.ex then
      out[#out + 1] = c
      trend.metric(ctx, "time_left_s", c.ex, args, c.instance)
    end
    if c.fit then fitted = true elseif c.why and c.why:match("points") then nofit = c.why end
    if #rows < 20 and (c.ex or (c.fit and c.fit.slope > 0) or #rows < 5) then
      local f = c.fit
      local now = c.ys[#c.ys] or 0
      rows[#rows + 1] = {
        c.name, runout.level(now, c.unit), c.capacity and runout.level(math.max(0, c.capacity - now), c.unit) or "-",
        f and runout.rate(f.slope, c.unit) or "-",
        f and (runout.rate(f.lo, c.unit) .. " to " .. runout.rate(f.hi, c.unit)) or "-",
        f and string.format("%.2f", f.tau) or "-",
        c.ex and trend.when(c.ex) or ("no: " .. (c.why or "?")),
      }
    end
  end
  if #rows > 0 then
    ctx:table { title = title, columns = { "resource", "in use", "left", "trend", "trend's interval", "tau", "runs out" },
                rows = rows }
  end
  if nofit and not fitted then
    ctx:unknown("time_left_s", "no trend can be fitted: " .. nofit
      .. " (a window of 5 samples or more: --window 5 at the default interval)")
  end
  return out
end

--- Culprits from processes ranked by how fast they consume (entries { task, rate }), the share
-- of the resource's own rate each explains (capped at 1).
function runout.blame(ctx, entries, total_rate, max)
  table.sort(entries, function(a, b)
    if a.rate ~= b.rate then return a.rate > b.rate end
    return a.task.pid < b.task.pid
  end)
  local named = {}
  for i = 1, math.min(max or 3, #entries) do
    local e = entries[i]
    local share = (total_rate and total_rate > 0) and math.min(1, e.rate / total_rate) or 0
    ctx:culprit { pid = e.task.pid, comm = e.task.comm, cmdline = e.task.cmdline, share = share,
                  kernel_thread = e.task.kernel_thread }
    named[#named + 1] = e
  end
  return named
end

--- The process that runs out (c.task) is its own culprit.
function runout.blame_self(ctx, c)
  return runout.blame(ctx, { { task = c.task, rate = c.ex.rate } }, c.ex.rate, 1)
end

--- Name the culprits (runout.blame) and append them to c's sentence: "...; LABEL: loader (pid 123)".
function runout.say(ctx, c, entries, verb, label)
  local named = runout.blame(ctx, entries, c.ex.rate, 3)
  local sentence = runout.sentence(c, verb)
  local who = runout.who(named)
  if who then sentence = sentence .. "; " .. label .. ": " .. who end
  return sentence, named
end

--- For each pid in a cgroup with a limit, the tightest room it has: { [pid] = { name, headroom } }.
-- limit_of(cg) gives the cgroup's limit and its use now (nil when it has none).
function runout.cgroup_room(list, limit_of)
  local out = {}
  for _, cg in ipairs(list or {}) do
    local limit, used = limit_of(cg)
    if limit and limit > 0 and used then
      local room = math.max(0, limit - used)
      for _, pid in ipairs(cg.procs) do
        if not out[pid] or room < out[pid].headroom then
          out[pid] = { cg = cg, name = cgroups.name(cg, list), headroom = room }
        end
      end
    end
  end
  return out
end

--- "loader (pid 123)" or "loader (pid 123) and 2 others", for the sentence; nil when none.
function runout.who(named)
  if not named or #named == 0 then return nil end
  local s = fmt.task(named[1].task)
  if #named > 1 then s = s .. string.format(" and %d other%s", #named - 1, #named > 2 and "s" or "") end
  return s
end

-- Whether field changed over series (samples without it are skipped).
local function moved(series, field)
  local first
  for _, x in ipairs(series) do
    local v = x[field]
    if v ~= nil then
      if first == nil then first = v elseif v ~= first then return true end
    end
  end
  return false
end

--- The tasks by pid, and the candidates of the processes whose level series moved (task_levels),
-- for field (rss_bytes, threads, fds): { task, ts, ys, series, moved }. moved: the resident memory,
-- threads or fd count moved; a process whose anonymous memory alone moved is a candidate only
-- when also_field (anon_bytes) is asked for, with moved false. sonde itself is left out.
function runout.task_series(ctx, field, also_field)
  local levels = ctx.proc.task_levels()
  local list = ctx.proc.tasks() or {}
  local by_pid = {}
  for _, t in ipairs(list) do by_pid[t.pid] = t end
  local out = {}
  if not levels then return out, by_pid end
  for pid, s in pairs(levels) do
    local t = type(pid) == "number" and by_pid[pid]
    if t and not t.self and not t.kernel_thread then
      local m = moved(s, "rss_bytes") or moved(s, "threads") or moved(s, "fds")
      if m or (also_field and moved(s, also_field)) then
        local ts, ys = trend.points(s, field)
        if #ts >= 2 then out[#out + 1] = { task = t, ts = ts, ys = ys, series = s, moved = m } end
      end
    end
  end
  table.sort(out, function(a, b) return a.task.pid < b.task.pid end)
  return out, by_pid, levels
end

return runout
