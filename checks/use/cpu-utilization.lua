--- CPU utilization: how busy the CPUs were over the window, system-wide.
local cpu = require("cpu")
local fmt = require("fmt")
local tasks = require("tasks")

return {
  id = "use.cpu-utilization",
  title = "CPU utilization",
  methodology = "use", resource = "cpu", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.stat", "proc.pids" },
  args = {
    warn_pct = { type = "number", default = 85, help = "system-wide busy % that warns" },
    crit_pct = { type = "number", default = 95, help = "system-wide busy % that is critical" },
    warn_steal_pct = { type = "number", default = 10, help = "steal % (time the hypervisor took)" },
    top_cpus = { type = "number", default = 16, help = "CPUs with a row in the per-CPU table (the busiest; the others share one row)" },
  },

  run = function(ctx, args)
    local stat, why = ctx.proc.stat()
    if not stat then
      ctx:unknown("busy_pct", why)
      return
    end
    local b = cpu.breakdown(stat.total)
    local busy = cpu.busy(b)
    if not busy then
      ctx:unknown("busy_pct", "the window holds fewer than two /proc/stat samples")
      return
    end
    local pct = function(f) return 100 * b[f] / b.total end
    local per_interval = cpu.busy_per_interval(stat.total)
    local busy_st = ctx:metric("busy_pct", 100 * busy, { unit = "%", warn = args.warn_pct, crit = args.crit_pct, over = per_interval, agg = "mean", node_exporter = "node_cpu_seconds_total" })
    ctx:metric("user_pct", pct("user") + pct("nice"), { unit = "%", agg = "mean", node_exporter = "node_cpu_seconds_total" })
    ctx:metric("system_pct", pct("system") + pct("irq") + pct("softirq"), { unit = "%", agg = "mean", node_exporter = "node_cpu_seconds_total" })
    ctx:metric("iowait_pct", pct("iowait"), { unit = "%", agg = "mean", node_exporter = "node_cpu_seconds_total" })
    local steal_st = "ok"
    if ctx.host.virtualization or b.steal > 0 then
      steal_st = ctx:metric("steal_pct", pct("steal"), { unit = "%", warn = args.warn_steal_pct, agg = "mean", node_exporter = "node_cpu_seconds_total" })
    end
    ctx:series("CPU busy % (all CPUs)", per_interval, { unit = "%" })

    local items = {}
    for _, s in ipairs(stat.cpus) do
      local cb = cpu.breakdown(s)
      if cpu.busy(cb) then items[#items + 1] = { cpu = s.id, b = cb } end
    end
    local function cells(label, cb)
      return { label, fmt.pct(100 * cpu.busy(cb)), fmt.pct(100 * (cb.user + cb.nice) / cb.total),
               fmt.pct(100 * (cb.system + cb.irq + cb.softirq) / cb.total),
               fmt.pct(100 * cb.iowait / cb.total), fmt.pct(100 * cb.steal / cb.total) }
    end
    local rows, title = cpu.top_rows("Per CPU", items, args.top_cpus, function(e) return cpu.busy(e.b) end,
      function(e) return cells("cpu" .. e.cpu, e.b) end,
      function(rest)
        local bs = {}
        for i, e in ipairs(rest) do bs[i] = e.b end
        return cells(string.format("the other %d (mean)", #rest), cpu.sum(bs))
      end, "busiest")
    ctx:table { title = title, columns = { "CPU", "busy", "user", "system", "iowait", "steal" }, rows = rows }

    local list = ctx.proc.tasks()
    local hz = ctx.host.clk_tck
    local busy_s = (b.total - b.idle - b.iowait) / hz
    if list then
      local top = tasks.top(list, function(t) return tasks.cpu_seconds(t, hz) end, 5)
      if busy_st ~= "ok" then tasks.blame(ctx, top, busy_s, 3) end
    end
    local steal = ""
    if steal_st ~= "ok" then
      steal = string.format("; the hypervisor took %s of the CPU time (steal): this VM's host is overcommitted",
        fmt.pct(pct("steal")))
    end
    ctx:summary(string.format("CPUs %s busy over %.1f s on %d CPUs (user %s, system %s, iowait %s)%s",
      fmt.pct(100 * busy), ctx.window.seconds, ctx.host.cpus, fmt.pct(pct("user") + pct("nice")),
      fmt.pct(pct("system") + pct("irq") + pct("softirq")), fmt.pct(pct("iowait")), steal))
  end,
}
