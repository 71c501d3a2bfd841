--- Memory saturation: is work waiting on memory (reclaim, swapping, PSI memory)?
local fmt = require("fmt")
local tasks = require("tasks")
local psi = require("psi")

return {
  id = "use.memory-saturation",
  title = "Memory saturation",
  methodology = "use", resource = "memory", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.vmstat", "proc.pressure", "proc.pids" },
  args = {
    warn_psi_pct = { type = "number", default = 5, help = "% of the window some task stalled on memory" },
    crit_psi_pct = { type = "number", default = 20, help = "critical PSI memory some %" },
    warn_swap_per_s = { type = "number", default = 100, help = "pages swapped in+out per second" },
    warn_direct_scan_per_s = { type = "number", default = 1000, help = "pages scanned by direct reclaim per second" },
  },

  run = function(ctx, args)
    local saturated = false
    local pr, why = ctx.proc.pressure("memory")
    local some = psi.window_pct(pr, "some_total")
    if some then
      local st = ctx:metric("psi_some_pct", some, { unit = "%", warn = args.warn_psi_pct, crit = args.crit_psi_pct, agg = "mean", node_exporter = "node_pressure_memory_waiting_seconds_total" })
      local full = psi.window_pct(pr, "full_total")
      if full then
        ctx:metric("psi_full_pct", full, { unit = "%", agg = "mean", node_exporter = "node_pressure_memory_stalled_seconds_total" })
      end
      saturated = st ~= "ok"
    else
      ctx:unknown("psi_some_pct", why or "fewer than two PSI samples in the window")
    end

    local vm, vwhy = ctx.proc.vmstat()
    if not vm then
      ctx:unknown("swap_pages_per_s", vwhy)
      return
    end
    local swap = (vm:rate("pswpin") or 0) + (vm:rate("pswpout") or 0)
    local swap_st = ctx:metric("swap_pages_per_s", swap, { unit = "pages/s", warn = args.warn_swap_per_s, crit = 10 * args.warn_swap_per_s, agg = "mean", node_exporter = "node_vmstat_pswpin", help = "pages swapped in and out" })
    -- direct reclaim: allocating tasks scanning pages themselves (they stall)
    local direct = 0
    for _, f in ipairs({ "pgscan_direct", "pgscan_direct_normal", "pgscan_direct_dma32", "pgscan_direct_movable" }) do
      if vm[1][f] then direct = direct + (vm:rate(f) or 0) end
    end
    local direct_st = ctx:metric("direct_scan_pages_per_s", direct, { unit = "pages/s", warn = args.warn_direct_scan_per_s, agg = "mean" })
    ctx:metric("kswapd_scan_pages_per_s", vm:rate("pgscan_kswapd") or 0, { unit = "pages/s", agg = "mean" })
    ctx:metric("major_faults_per_s", vm:rate("pgmajfault") or 0, { unit = "faults/s", agg = "mean", node_exporter = "node_vmstat_pgmajfault" })
    if vm[1].allocstall_normal or vm[1].allocstall_movable then
      ctx:metric("allocstalls", (vm:delta("allocstall_normal") or 0) + (vm:delta("allocstall_movable") or 0) + (vm:delta("allocstall_dma32") or 0), { agg = "total" })
    end
    ctx:series("Major faults per second", vm:rates("pgmajfault"), { unit = "faults/s", step = ctx.window.interval })
    saturated = saturated or swap_st ~= "ok" or direct_st ~= "ok"

    local list = ctx.proc.tasks()
    if list then
      local top = tasks.top(list, function(t) return t.majflt end, 5)
      local rows = {}
      local total = 0
      for _, t in ipairs(list) do total = total + t.majflt end
      for _, e in ipairs(top) do rows[#rows + 1] = { e.task.pid, e.task.comm, e.value, fmt.bytes(e.task.rss_bytes) } end
      ctx:table { title = "Processes by major faults in the window", columns = { "pid", "process", "major faults", "RSS" }, rows = rows }
      if saturated then tasks.blame(ctx, top, total, 3) end
    end
    ctx:summary(string.format("swapping %.0f pages/s, direct reclaim scanning %.0f pages/s, %.1f major faults/s",
      swap, direct, vm:rate("pgmajfault") or 0))
    if saturated then ctx:next("who allocates and faults: per-process faults and reclaim tracing (drill-down)") end
  end,
}
