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

function cgroups.cpu_key(t) return t.utime + t.stime end
function cgroups.rss_key(t) return t.rss_bytes end
function cgroups.threads_key(t) return t.threads end

return cgroups
