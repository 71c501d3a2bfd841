--- Memory utilization: memory in use against what the host has (MemAvailable, not "free").
local fmt = require("fmt")
local tasks = require("tasks")

return {
  id = "use.memory-utilization",
  title = "Memory utilization",
  methodology = "use", resource = "memory", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.meminfo", "proc.pids" },
  args = {
    warn_pct = { type = "number", default = 90, help = "used % (total minus available) that warns" },
    crit_pct = { type = "number", default = 97, help = "used % that is critical" },
  },

  run = function(ctx, args)
    local mem, why = ctx.proc.meminfo()
    if not mem then
      ctx:unknown("used_pct", why)
      return
    end
    local total = mem:last("MemTotal")
    if not total or total <= 0 or not mem:last("MemAvailable") then
      ctx:unknown("used_pct", "/proc/meminfo has no MemAvailable (kernel older than 3.14)")
      return
    end
    local used = {}
    local peak = 0
    for i, s in ipairs(mem) do
      used[i] = 100 * (s.MemTotal - s.MemAvailable) / s.MemTotal
      peak = math.max(peak, used[i])
    end
    local st = ctx:metric("used_pct", peak, { unit = "%", warn = args.warn_pct, crit = args.crit_pct, over = used, agg = "peak", node_exporter = "node_memory_MemAvailable_bytes" })
    ctx:metric("available", mem:min("MemAvailable"), { unit = "bytes", agg = "min", node_exporter = "node_memory_MemAvailable_bytes" })
    local swap_total = mem:last("SwapTotal") or 0
    if swap_total > 0 then
      ctx:metric("swap_used_pct", 100 * (swap_total - mem:last("SwapFree")) / swap_total, { unit = "%", agg = "last", node_exporter = "node_memory_SwapFree_bytes" })
    end
    ctx:series("Memory used % (total minus available)", used, { unit = "%", step = ctx.window.interval })
    local last = mem[#mem]
    ctx:table { title = "Memory at the end of the window", columns = { "", "bytes" }, rows = {
      { "total", fmt.bytes(last.MemTotal) }, { "available", fmt.bytes(last.MemAvailable) },
      { "free", fmt.bytes(last.MemFree) }, { "page cache", fmt.bytes(last.Cached) },
      { "anonymous", fmt.bytes(last.AnonPages) }, { "slab", fmt.bytes(last.Slab) },
      { "swap total", fmt.bytes(swap_total) }, { "swap free", fmt.bytes(last.SwapFree) },
    } }
    local list = ctx.proc.tasks()
    if list then
      local top = tasks.top(list, function(t) return t.rss_bytes end, 5)
      local rows = {}
      for _, e in ipairs(top) do rows[#rows + 1] = { e.task.pid, e.task.comm, fmt.bytes(e.value), e.task.cmdline } end
      ctx:table { title = "Largest resident processes", columns = { "pid", "process", "RSS", "command" }, rows = rows }
      if st ~= "ok" then tasks.blame(ctx, top, total - last.MemAvailable, 3) end
    end
    ctx:summary(string.format("%s of %s in use at the peak (%s available at the lowest)",
      fmt.pct(peak), fmt.bytes(total), fmt.bytes(mem:min("MemAvailable"))))
  end,
}
