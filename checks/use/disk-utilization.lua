--- Disk utilization: the share of the window each disk was busy (iostat's %util).
local disks = require("disks")
local fmt = require("fmt")
local tasks = require("tasks")

return {
  id = "use.disk-utilization",
  title = "Disk utilization",
  methodology = "use", resource = "disk", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.diskstats", "proc.pids" },
  args = {
    warn_pct = { type = "number", default = 70, help = "busy % that warns (one disk)" },
    crit_pct = { type = "number", default = 90, help = "busy % that is critical" },
  },

  run = function(ctx, args)
    local list, why = disks.active(ctx)
    if not list then
      ctx:unknown("busy_pct", why)
      return
    end
    if #list == 0 then
      ctx:note("no disk did any I/O during the window")
      ctx:metric("busy_pct", 0, { unit = "%", warn = args.warn_pct, crit = args.crit_pct, agg = "mean", node_exporter = "node_disk_io_time_seconds_total" })
      return
    end
    local rows, worst, worst_name = {}, -1, nil
    local busy = false -- a disk the runner judged warn or crit
    for _, d in ipairs(list) do
      local x = disks.iostat(d.series)
      if x then
        local per = {}
        local ticks = d.series:deltas("io_ticks")
        local dt = ctx.window.interval
        for i, v in ipairs(ticks) do per[i] = math.min(100, 100 * v / 1000 / dt) end
        local st = ctx:metric("busy_pct", x.util_pct, { unit = "%", instance = d.name, warn = args.warn_pct, crit = args.crit_pct, over = per, agg = "mean", node_exporter = "node_disk_io_time_seconds_total" })
        busy = busy or st ~= "ok"
        rows[#rows + 1] = { d.name, fmt.pct(x.util_pct), string.format("%.1f", x.r_s), string.format("%.1f", x.w_s),
                            string.format("%.1f", x.rkb_s), string.format("%.1f", x.wkb_s),
                            d.info.rotational == nil and "?" or (d.info.rotational and "yes" or "no") }
        if x.util_pct > worst then worst, worst_name = x.util_pct, d.name end
        ctx:series(d.name .. " busy %", per, { unit = "%", step = dt })
      end
    end
    ctx:table { title = "Disks with I/O in the window", columns = { "disk", "busy", "r/s", "w/s", "rKB/s", "wKB/s", "rotational" }, rows = rows }
    local procs = ctx.proc.tasks()
    if procs and busy then
      local top = tasks.top(procs, function(t) return (t.read_bytes or 0) + (t.write_bytes or 0) end, 5)
      local total = 0
      for _, t in ipairs(procs) do total = total + (t.read_bytes or 0) + (t.write_bytes or 0) end
      tasks.blame(ctx, top, total, 3)
      ctx:next("per-process I/O and the slowest I/Os on " .. worst_name .. " (drill-down; biotop/biosnoop)")
    end
    ctx:summary(string.format("busiest disk %s was busy %s of the window", worst_name, fmt.pct(worst)))
  end,
}
