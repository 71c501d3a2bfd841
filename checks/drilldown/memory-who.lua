--- Memory saturated or OOM, deeper: who is faulting (per process), how the kernel reclaims (direct vs kswapd), and the OOM kills with their triggers.
local fmt = require("fmt")
local tasks = require("tasks")

-- vmstat keys per reclaim source: older kernels split them per zone
local SCAN = {
  direct = { "pgscan_direct", "pgscan_direct_normal", "pgscan_direct_dma32", "pgscan_direct_movable", "pgscan_direct_dma" },
  kswapd = { "pgscan_kswapd", "pgscan_kswapd_normal", "pgscan_kswapd_dma32", "pgscan_kswapd_movable", "pgscan_kswapd_dma" },
}
local STEAL = {
  direct = { "pgsteal_direct", "pgsteal_direct_normal", "pgsteal_direct_dma32", "pgsteal_direct_movable", "pgsteal_direct_dma" },
  kswapd = { "pgsteal_kswapd", "pgsteal_kswapd_normal", "pgsteal_kswapd_dma32", "pgsteal_kswapd_movable", "pgsteal_kswapd_dma" },
}

-- the sum of the keys this kernel has, or nil when it has none of them
local function sum(vm, keys)
  local total
  for _, k in ipairs(keys) do
    if vm[1][k] then total = (total or 0) + (vm:delta(k) or 0) end
  end
  return total
end

return {
  id = "drilldown.memory-who",
  title = "Drill-down: who faults, how the kernel reclaims, and who set off an OOM kill",
  methodology = "drilldown", resource = "memory", metric = "who",
  tags = { "drilldown", "proc", "tracing" },
  collect = { "proc.vmstat", "proc.pids", "bpf.oomkill" },
  args = {
    top = { type = "number", default = 10, help = "processes listed" },
  },

  run = function(ctx, args)
    local secs = math.max(ctx.window.seconds, 1e-9)

    -- reclaim: pages scanned and reclaimed by allocating tasks themselves (direct: they
    -- stall) and by kswapd (in the background)
    local vm, vwhy = ctx.proc.vmstat()
    local direct_scan
    if vm and #vm >= 2 then
      local rows = {}
      for _, src in ipairs({ "direct", "kswapd" }) do
        local scanned, stolen = sum(vm, SCAN[src]), sum(vm, STEAL[src])
        if scanned then
          if src == "direct" then direct_scan = scanned end
          ctx:metric(src .. "_scan_pages_per_s", scanned / secs, { unit = "pages/s", agg = "mean" })
          rows[#rows + 1] = { src, fmt.num(scanned), stolen and fmt.num(stolen) or "?",
                              string.format("%.0f", scanned / secs),
                              (stolen and scanned > 0) and fmt.pct(100 * stolen / scanned) or "-" }
        else
          ctx:unknown(src .. "_scan_pages_per_s", "/proc/vmstat has no pgscan_" .. src .. " counter on this kernel")
        end
      end
      if #rows > 0 then
        ctx:table { title = "Page reclaim in the drill-down window (/proc/vmstat)",
                    columns = { "reclaimer", "pages scanned", "pages reclaimed", "scanned per second", "reclaimed of scanned" }, rows = rows }
      end
      local stalls = sum(vm, { "allocstall", "allocstall_normal", "allocstall_dma32", "allocstall_movable", "allocstall_dma" })
      if stalls then ctx:metric("allocstalls", stalls, { agg = "total" }) end
    else
      ctx:unknown("direct_scan_pages_per_s", vwhy or "the drill-down window holds fewer than two /proc/vmstat samples")
    end

    -- OOM kills: the trigger (allocating when the kill was decided) is who asked for the memory
    local trigger
    local oom, owhy = ctx.bpf.oomkill()
    if oom then
      local rows = {}
      for _, k in ipairs(oom.kills_list or {}) do
        local v, t = k.victim or {}, k.trigger or {}
        rows[#rows + 1] = { string.format("%.2f", (owhy.traced_from_s or 0) + (k.at_s or 0)),
                            t.pid or "?", t.comm or "?", v.pid or "?", v.comm or "?",
                            v.rss_bytes and fmt.bytes(v.rss_bytes) or "?", v.memcg or k.oom_memcg or "?" }
        if not trigger and t.pid and t.pid ~= 0 then trigger = t end
      end
      if trigger then
        local n = 0
        for _, k in ipairs(oom.kills_list or {}) do
          if k.trigger and k.trigger.pid == trigger.pid then n = n + 1 end
        end
        trigger.share = n / #rows
      end
      ctx:metric("oom_kills_traced", #rows, { agg = "total", node_exporter = "node_vmstat_oom_kill" })
      if #rows > 0 then
        ctx:table { traced = owhy, title = "OOM kills in the drill-down window (oomkill): who was allocating, who was killed",
                    columns = { "s into window", "trigger pid", "trigger", "victim pid", "victim", "victim rss", "memory cgroup" }, rows = rows }
      end
    else
      ctx:unknown("oom_kills_traced", owhy)
    end

    -- who faults: major faults read from storage (the slow ones), minor faults map pages
    local list, twhy = ctx.proc.tasks()
    local top
    if list then
      local ranked, total_maj, total_min = {}, 0, 0
      for _, t in ipairs(list) do
        local maj, min = t.majflt or 0, t.minflt or 0
        if not t.self and (maj > 0 or min > 0) then
          ranked[#ranked + 1] = t
          total_maj, total_min = total_maj + maj, total_min + min
        end
      end
      ranked = tasks.best(ranked, math.max(args.top, 1), function(a, b)
        if (a.majflt or 0) ~= (b.majflt or 0) then return (a.majflt or 0) > (b.majflt or 0) end
        if (a.minflt or 0) ~= (b.minflt or 0) then return (a.minflt or 0) > (b.minflt or 0) end
        return a.pid < b.pid
      end)
      local rows = {}
      for i, t in ipairs(ranked) do
        if i > args.top then break end
        rows[#rows + 1] = { t.pid, t.comm, fmt.num(t.majflt or 0), fmt.num(t.minflt or 0),
                            string.format("%.0f", (t.minflt or 0) / secs), t.rss_bytes and fmt.bytes(t.rss_bytes) or "?" }
      end
      ctx:table { title = "Processes by page faults (major, then minor; drill-down window)",
                  columns = { "pid", "process", "major faults", "minor faults", "minor per second", "RSS at the end" }, rows = rows }
      ctx:metric("major_faults", total_maj, { agg = "total", node_exporter = "node_vmstat_pgmajfault" })
      ctx:metric("minor_faults", total_min, { agg = "total", node_exporter = "node_vmstat_pgfault" })
      top = ranked[1]
      if top and not trigger then
        local key = (top.majflt or 0) > 0 and "majflt" or "minflt"
        local total = key == "majflt" and total_maj or total_min
        ctx:culprit { pid = top.pid, comm = top.comm, cmdline = top.cmdline, share = total > 0 and (top[key] or 0) / total or nil }
      end
    else
      ctx:unknown("major_faults", twhy)
    end
    if trigger then
      ctx:culprit { pid = trigger.pid, comm = trigger.comm, share = trigger.share }
    end

    local parts = {}
    if trigger then
      parts[#parts + 1] = string.format("an OOM kill was set off by %s (pid %d) allocating", trigger.comm or "?", trigger.pid)
    end
    if top then
      parts[#parts + 1] = string.format("top faulting: %s, %s major and %s minor faults", fmt.task(top),
        fmt.num(top.majflt or 0), fmt.num(top.minflt or 0))
    end
    if direct_scan then
      parts[#parts + 1] = string.format("direct reclaim scanned %s pages", fmt.num(direct_scan))
    end
    ctx:summary(#parts > 0 and ("Over the drill-down window: " .. table.concat(parts, "; "))
      or "Over the drill-down window: no process faulted and no OOM kill was traced")
  end,
}
