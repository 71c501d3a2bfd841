--- Helpers over ctx.proc.cgroups(): counters over the window, and the processes in a cgroup.
local tasks = require("tasks")

local cgroups = {}

--- Increase of counter f of part ("cpu", "memory", "pids") over the window; nil when unread.
function cgroups.delta(cg, part, f)
  local a, b = cg[part].first[f], cg[part].last[f]
  if not a or not b then return nil end
  return b >= a and b - a or b -- a reset (cgroup recreated): count from zero
end

--- Seconds between the first and last read of part's counters (nil when read once).
function cgroups.span(cg, part)
  local a, b = cg[part].first.t, cg[part].last.t
  if not a or not b or b <= a then return nil end
  return b - a
end

--- True when the cgroup has controller name.
function cgroups.has(cg, name)
  for _, c in ipairs(cg.controllers) do
    if c == name then return true end
  end
  return false
end

--- The row name of a cgroup: its path, "(v2)" added on a host with both versions.
function cgroups.name(cg, list)
  if list.v1 and list.v2 and cg.version == 2 then return cg.path .. " (v2)" end
  return cg.path
end

--- The tasks (ctx.proc.tasks()) whose pid was in the cgroup's cgroup.procs at either end.
function cgroups.tasks(cg, all)
  local by_pid = {}
  for _, t in ipairs(all or {}) do by_pid[t.pid] = t end
  local out = {}
  for _, pid in ipairs(cg.procs) do
    if by_pid[pid] then out[#out + 1] = by_pid[pid] end
  end
  return out
end

--- Name the cgroup's top processes by key as culprits; returns the ranked list.
function cgroups.blame(ctx, cg, all, key, max)
  local members = cgroups.tasks(cg, all)
  local top = tasks.top(members, key, max or 3)
  local total = 0
  for _, t in ipairs(members) do
    local v = not t.self and key(t)
    if v and v > 0 then total = total + v end
  end
  tasks.blame(ctx, top, total, max or 3)
  return top
end

--- The cgroup's I/O against its limits over the window (v2 io.max, v1 blkio.throttle.*), the
-- device and direction nearest its limit: { pct, dev, what, rate, limit } or nil when it has
-- no I/O limit (or its counters were read once).
function cgroups.io_limit(cg)
  local io = cg.io
  if not io or not next(io.limits) then return nil end
  local worst
  local pairs_of = { { "rbps", "rbytes", "read bytes/s" }, { "wbps", "wbytes", "write bytes/s" },
                     { "riops", "rios", "read IOPS" }, { "wiops", "wios", "write IOPS" } }
  for dev, lim in pairs(io.limits) do
    local a, b = io.first[dev], io.last[dev]
    for _, k in ipairs(pairs_of) do
      local l = lim[k[1]]
      if l and l > 0 then
        local rate = 0
        if a and b and b.t and a.t and b.t > a.t and b[k[2]] and a[k[2]] then
          rate = math.max(0, b[k[2]] - a[k[2]]) / (b.t - a.t)
        end
        local pct = 100 * rate / l
        if not worst or pct > worst.pct then
          worst = { pct = pct, dev = dev, what = k[3], rate = rate, limit = l }
        end
      end
    end
  end
  return worst
end

--- I/O of the cgroup over the window in bytes per second (read + write, every device), or nil.
function cgroups.io_rate(cg)
  local io = cg.io
  if not io then return nil end
  local sum, any = 0, false
  for dev, b in pairs(io.last) do
    local a = io.first[dev]
    if a and a.t and b.t and b.t > a.t then
      sum = sum + (math.max(0, (b.rbytes or 0) - (a.rbytes or 0)) + math.max(0, (b.wbytes or 0) - (a.wbytes or 0))) / (b.t - a.t)
      any = true
    end
  end
  return any and sum or nil
end

function cgroups.cpu_key(t) return t.utime + t.stime end
function cgroups.rss_key(t) return t.rss_bytes end
function cgroups.threads_key(t) return t.threads end
function cgroups.io_key(t) return (t.read_bytes or 0) + (t.write_bytes or 0) end

return cgroups
