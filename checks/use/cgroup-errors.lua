--- Cgroup errors: OOM kills inside a cgroup, allocations failed at the memory limit, forks refused by pids.max.
local cgroups = require("cgroups")
local containers = require("containers")

return {
  id = "use.cgroup-errors",
  title = "Cgroup errors (OOM kills, fork failures)",
  methodology = "use", resource = "cgroup", metric = "errors",
  tags = { "default", "proc" },
  collect = { "proc.cgroups", "proc.pids" },

  run = function(ctx, args)
    local list, why = ctx.proc.cgroups()
    if not list then
      for _, m in ipairs({ "oom_kills", "fork_failures" }) do ctx:unknown(m, why) end
      return
    end
    local all = ctx.proc.tasks()
    local ix = containers.load(ctx)
    local rows = {}
    local worst = { n = 0 }
    local kills_seen, forks_seen = false, false
    for _, cg in ipairs(list) do
      local name = cgroups.name(cg, list)
      local kills = cgroups.has(cg, "memory") and cgroups.delta(cg, "memory", "oom_kill")
      local ooms = cg.version == 2 and cgroups.delta(cg, "memory", "oom")
      local maxev = cg.version == 2 and cgroups.delta(cg, "memory", "events_max")
      local forks = cgroups.has(cg, "pids") and cgroups.delta(cg, "pids", "events_max")
      if kills then
        kills_seen = true
        ctx:metric("oom_kills", kills, { instance = name, warn = 1, crit = 1, agg = "total" })
        if kills > worst.n then worst = { n = kills, cg = cg, what = "OOM kills", key = cgroups.rss_key } end
      end
      if ooms then
        -- times the cgroup ran out of memory at its limit (a kill may or may not follow)
        ctx:metric("oom_events", ooms, { instance = name, warn = 1, agg = "total" })
      end
      if maxev then
        -- usage was about to go over memory.max: allocations were reclaimed for, or failed
        ctx:metric("memory_max_events", maxev, { instance = name, agg = "total" })
      end
      if forks then
        forks_seen = true
        ctx:metric("fork_failures", forks, { instance = name, warn = 1, agg = "total" })
        if kills == 0 or not kills then
          if forks > 0 and worst.n == 0 then worst = { n = forks, cg = cg, what = "forks refused by pids.max", key = cgroups.threads_key } end
        end
      end
      if (kills and kills > 0) or (ooms and ooms > 0) or (forks and forks > 0) or (maxev and maxev > 0) then
        rows[#rows + 1] = { name, containers.label(ix, cg), "v" .. cg.version, kills or "-", ooms or "-", maxev or "-", forks or "-" }
      end
      if cg.version == 1 and cgroups.has(cg, "memory") and cg.memory.last.under_oom and cg.memory.last.under_oom > 0 then
        ctx:note(name .. " is under OOM at the end of the window (memory.oom_control under_oom 1: the OOM killer is disabled there and tasks wait)")
      end
    end
    if not kills_seen then
      ctx:unknown("oom_kills", #list == 0 and "no cgroup with processes was found"
        or "no cgroup with processes has the memory controller (v1 memory hierarchy or v2 memory enabled), or its kernel has no oom_kill count in memory.oom_control (before 4.13)")
    end
    if not forks_seen then
      ctx:unknown("fork_failures", #list == 0 and "no cgroup with processes was found"
        or "no cgroup with processes has the pids controller")
    end
    if #rows > 0 then
      ctx:table { title = "Cgroups with errors in the window",
                  columns = { "cgroup", "container", "version", "OOM kills", "OOM events", "memory.max events", "forks refused" },
                  rows = rows }
    end
    if worst.n > 0 then
      if all then cgroups.blame(ctx, worst.cg, all, worst.key, 3) end
      ctx:summary(string.format("%d %s in %s", worst.n, worst.what, containers.describe(ix, worst.cg, cgroups.name(worst.cg, list))))
    end
  end,
}
