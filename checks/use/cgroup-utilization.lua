--- Cgroup utilization: memory against its limit, CPU against its quota, tasks against pids.max,
-- I/O against io.max (v1 blkio.throttle), per cgroup, each named by its container or pod.
local cgroups = require("cgroups")
local containers = require("containers")
local fmt = require("fmt")

return {
  id = "use.cgroup-utilization",
  title = "Cgroup utilization (limits)",
  methodology = "use", resource = "cgroup", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.cgroups", "proc.pids" },
  args = {
    warn_pct = { type = "number", default = 90, help = "% of a cgroup's limit (memory, CPU quota, pids) that warns" },
    crit_pct = { type = "number", default = 98, help = "% of a limit that is critical" },
  },

  run = function(ctx, args)
    local list, why = ctx.proc.cgroups()
    if not list then
      for _, m in ipairs({ "memory_pct", "cpu_quota_pct", "pids_pct" }) do ctx:unknown(m, why) end
      return
    end
    local all = ctx.proc.tasks()
    local ix = containers.load(ctx)
    local hz = ctx.host.clk_tck or 100
    local th = { unit = "%", warn = args.warn_pct, crit = args.crit_pct }
    local rows, limited = {}, 0
    local worst = { pct = -1 }
    local at_limit = false -- a limit the runner judged warn or crit
    local function judged(st) at_limit = at_limit or st ~= "ok" end
    local function consider(cg, what, pct, key)
      if pct > worst.pct then worst = { pct = pct, cg = cg, what = what, key = key } end
    end
    for _, cg in ipairs(list) do
      local name = cgroups.name(cg, list)
      local mem_s, cpu_s, pids_s, io_s = "-", "-", "-", "-"
      local lim = false
      -- memory: the highest usage seen (v1 max_usage_in_bytes also covers peaks between rounds)
      local limit = cg.memory.limit
      if limit and limit > 0 then
        local peak = #cg.memory.usage > 0 and cg.memory.usage:max("bytes") or nil
        if cg.memory.max_usage and (not peak or cg.memory.max_usage > peak) then peak = cg.memory.max_usage end
        if peak then
          local pct, over = 100 * peak / limit, {}
          for i, b in ipairs(cg.memory.usage:values("bytes")) do over[i] = 100 * b / limit end
          judged(ctx:metric("memory_pct", pct, { unit = "%", warn = th.warn, crit = th.crit, instance = name, over = over, agg = "peak" }))
          consider(cg, "memory", pct, cgroups.rss_key)
          mem_s = string.format("%s of %s", fmt.bytes(peak), fmt.bytes(limit))
          lim = true
        end
      end
      -- CPU: usage over the window against quota/period CPUs
      local quota, period = cg.cpu.quota_usec, cg.cpu.period_usec
      if quota and period and period > 0 then
        local allowed = quota / period
        local used, secs = cgroups.delta(cg, "cpu", "usage_usec"), cgroups.span(cg, "cpu")
        local cpus
        if used and secs then
          cpus = used / 1e6 / secs
        elseif all and ctx.window.seconds > 0 then
          -- v1 with cpuacct in another hierarchy: the CPU time of the processes in it
          local sum = 0
          for _, t in ipairs(cgroups.tasks(cg, all)) do sum = sum + (t.utime + t.stime) / hz end
          cpus = sum / ctx.window.seconds
          ctx:note(string.format("%s: CPU usage from its processes' /proc/PID/stat (no cpuacct.usage in its hierarchy)", name))
        end
        if cpus then
          local pct = 100 * cpus / allowed
          judged(ctx:metric("cpu_quota_pct", pct, { unit = "%", warn = th.warn, crit = th.crit, instance = name, agg = "mean" }))
          consider(cg, "CPU quota", pct, cgroups.cpu_key)
          cpu_s = string.format("%.2f of %.2f CPUs", cpus, allowed)
          lim = true
        else
          ctx:unknown("cpu_quota_pct", name .. ": no CPU usage counter and no per-process statistics")
        end
      end
      -- pids: tasks against pids.max
      local pmax = cg.pids.limit
      if pmax and pmax > 0 and #cg.pids.current > 0 then
        local cur = cg.pids.current:max("current")
        local pct = 100 * cur / pmax
        judged(ctx:metric("pids_pct", pct, { unit = "%", warn = th.warn, crit = th.crit, instance = name, agg = "peak" }))
        consider(cg, "pids", pct, cgroups.threads_key)
        pids_s = string.format("%d of %d", cur, pmax)
        lim = true
      end
      -- I/O: the device and direction nearest its io.max (v1 blkio.throttle) limit
      local io = cgroups.io_limit(cg)
      if io then
        judged(ctx:metric("io_limit_pct", io.pct, { unit = "%", warn = th.warn, crit = th.crit, instance = name, agg = "mean" }))
        consider(cg, "I/O (" .. io.what .. " on " .. io.dev .. ")", io.pct, cgroups.io_key)
        local v = io.what:find("bytes") and function(x) return fmt.bytes(x) end or function(x) return string.format("%.0f", x) end
        io_s = string.format("%s of %s %s on %s", v(io.rate), v(io.limit), io.what, io.dev)
        lim = true
      end
      if lim then
        limited = limited + 1
        rows[#rows + 1] = { name, containers.label(ix, cg), "v" .. cg.version, mem_s, cpu_s, pids_s, io_s, #cg.procs }
      end
    end
    ctx:metric("limited_cgroups", limited, { agg = "last" })
    if list.truncated then
      ctx:note("the cgroup walk hit its bound (7 levels, 2048 directories, 512 cgroups kept): some cgroups were not read")
    end
    if limited == 0 then
      ctx:summary(string.format("no cgroup with processes has a memory, CPU, pids or I/O limit (%d cgroups with processes)", #list))
      return
    end
    ctx:table { title = "Cgroups with limits (peak use against the limit)",
                columns = { "cgroup", "container", "version", "memory", "CPU", "pids", "I/O", "processes" }, rows = rows }
    if at_limit and all then
      cgroups.blame(ctx, worst.cg, all, worst.key, 3)
    end
    ctx:summary(string.format("%s is at %s of its %s limit (%s with limits)",
      containers.describe(ix, worst.cg, cgroups.name(worst.cg, list)), fmt.pct(worst.pct), worst.what,
      fmt.count(limited, "cgroup")))
  end,
}
