--- Cgroup saturation: CPU throttling by the quota, memory pressure (PSI, v2) and reclaim at the limit, per cgroup.
local cgroups = require("cgroups")
local containers = require("containers")
local fmt = require("fmt")
local psi = require("psi")

return {
  id = "use.cgroup-saturation",
  title = "Cgroup saturation (throttling, pressure, reclaim at the limit)",
  methodology = "use", resource = "cgroup", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.cgroups", "proc.pids" },
  args = {
    warn_throttled_pct = { type = "number", default = 10, help = "% of CFS periods throttled that warns" },
    -- 25%: the level of the kubernetes-mixin CPUThrottlingHigh alert, a common production line
    crit_throttled_pct = { type = "number", default = 25, help = "% of CFS periods throttled that is critical" },
    warn_psi_pct = { type = "number", default = 10, help = "% of the window some task of the cgroup stalled on memory (v2) that warns" },
    crit_psi_pct = { type = "number", default = 30, help = "critical memory stall %" },
    warn_limit_hits = { type = "number", default = 1, help = "times usage hit the memory limit (v1 failcnt, v2 memory.events high) that warns, when usage is near the limit" },
  },

  run = function(ctx, args)
    local list, why = ctx.proc.cgroups()
    if not list then
      for _, m in ipairs({ "throttled_pct", "memory_stall_pct", "limit_hits" }) do ctx:unknown(m, why) end
      return
    end
    local all = ctx.proc.tasks()
    local ix = containers.load(ctx)
    local rows = {}
    local worst = { score = -1 }
    local function consider(cg, what, score, key)
      if score > worst.score then worst = { score = score, cg = cg, what = what, key = key } end
    end
    local psi_seen, psi_why = false, nil
    for _, cg in ipairs(list) do
      local name = cgroups.name(cg, list)
      local row = { name, containers.label(ix, cg), "v" .. cg.version, "-", "-", "-", "-" }
      local shown = false
      -- CPU: periods throttled by the quota, and the time throttled
      local periods = cgroups.delta(cg, "cpu", "nr_periods")
      local thr = cgroups.delta(cg, "cpu", "nr_throttled")
      if periods and thr and periods > 0 then
        local pct = 100 * thr / periods
        ctx:metric("throttled_pct", pct, { unit = "%", instance = name,
                   warn = args.warn_throttled_pct, crit = args.crit_throttled_pct, agg = "mean" })
        local tus = cgroups.delta(cg, "cpu", "throttled_usec") or 0
        local secs = cgroups.span(cg, "cpu") or ctx.window.seconds
        ctx:metric("throttled_s_per_s", tus / 1e6 / math.max(secs, 1e-3), { unit = "ratio", instance = name, agg = "mean" })
        row[4] = string.format("%d of %d (%s)", thr, periods, fmt.pct(pct))
        row[5] = string.format("%.2f s", tus / 1e6)
        consider(cg, "CPU throttling", pct / args.warn_throttled_pct, cgroups.cpu_key)
        shown = true
      end
      -- memory pressure (PSI) per cgroup: v2 only
      local pct = psi.span_pct(cg.pressure and cg.pressure.memory, "some_total")
      if pct then
        ctx:metric("memory_stall_pct", pct, { unit = "%", instance = name,
                   warn = args.warn_psi_pct, crit = args.crit_psi_pct, agg = "mean" })
        row[6] = fmt.pct(pct)
        consider(cg, "memory stalls", pct / args.warn_psi_pct, cgroups.rss_key)
        psi_seen = true
        shown = true
      elseif cg.pressure_reason then
        psi_why = psi_why or cg.pressure_reason
      end
      -- memory limit hits: reclaim forced by the limit (v1 failcnt; v2 memory.events high)
      -- (v1 with swap accounting charges memory+swap first: at equal limits only memsw.failcnt grows)
      local hits = cgroups.delta(cg, "memory", "failcnt")
      if hits then hits = hits + (cgroups.delta(cg, "memory", "memsw_failcnt") or 0) end
      hits = hits or cgroups.delta(cg, "memory", "events_high")
      local limit = cg.memory.limit
      if hits and limit and limit > 0 then
        local peak = #cg.memory.usage > 0 and cg.memory.usage:max("bytes") or 0
        local near = peak >= 0.9 * limit
        ctx:metric("limit_hits", hits, { instance = name, warn = near and args.warn_limit_hits or nil, agg = "total" })
        row[7] = string.format("%d (peak %s of %s)", hits, fmt.bytes(peak), fmt.bytes(limit))
        if near and hits > 0 then consider(cg, "reclaim at the memory limit", hits / args.warn_limit_hits, cgroups.rss_key) end
        shown = true
      end
      if shown then rows[#rows + 1] = row end
    end
    if not psi_seen then
      ctx:unknown("memory_stall_pct", psi_why or "no cgroup with processes was found")
    end
    if #rows == 0 then
      ctx:summary(string.format("no cgroup with processes has a CPU quota or memory limit to saturate (%d cgroups with processes)", #list))
      return
    end
    ctx:table { title = "Cgroups: CPU throttling, memory stalls and limit hits over the window",
                columns = { "cgroup", "container", "version", "throttled periods", "throttled time", "memory stall", "memory limit hits" },
                rows = rows }
    if worst.score >= 1 and all then
      cgroups.blame(ctx, worst.cg, all, worst.key, 3)
      ctx:summary(string.format("%s is saturated: %s", containers.describe(ix, worst.cg, cgroups.name(worst.cg, list)), worst.what))
    end
  end,
}
