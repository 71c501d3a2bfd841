--- Swap capacity: swap used against swap configured (meminfo), per swap device (/proc/swaps).
local fmt = require("fmt")

return {
  id = "use.swap-utilization",
  title = "Swap utilization",
  methodology = "use", resource = "swap", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.meminfo", "proc.mounts" },
  args = {
    warn_pct = { type = "number", default = 80, help = "% of swap used that warns" },
    crit_pct = { type = "number", default = 95, help = "critical %" },
  },

  run = function(ctx, args)
    local mem, why = ctx.proc.meminfo()
    if not mem or not mem:last("SwapTotal") then
      ctx:unknown("used_pct", why or "/proc/meminfo has no SwapTotal (kernel without CONFIG_SWAP)")
      return
    end
    local total = mem:last("SwapTotal")
    ctx:metric("configured_bytes", total, { unit = "bytes", agg = "last", node_exporter = "node_memory_SwapTotal_bytes" })
    if total == 0 then
      ctx:summary("no swap is configured: memory pressure goes to page cache reclaim and the OOM killer, never to swap")
      return
    end
    local used = {}
    for i, s in ipairs(mem) do
      used[i] = 100 * ((s.SwapTotal or 0) - (s.SwapFree or 0)) / math.max(s.SwapTotal or 1, 1)
    end
    local pct = math.max(table.unpack(used))
    ctx:metric("used_pct", pct, { unit = "%", warn = args.warn_pct, crit = args.crit_pct, over = used, agg = "peak", node_exporter = "node_memory_SwapFree_bytes" })
    ctx:metric("used_bytes", total - mem:last("SwapFree"), { unit = "bytes", agg = "last", node_exporter = "node_memory_SwapFree_bytes" })
    local sw = ctx.proc.swaps()
    if sw then
      local names, rows = {}, {}
      for n in pairs(sw) do names[#names + 1] = n end
      table.sort(names)
      for _, n in ipairs(names) do
        local s = sw[n]
        local last = s[#s]
        local dp = last.size_bytes > 0 and 100 * last.used_bytes / last.size_bytes or 0
        ctx:metric("device_used_pct", dp, { unit = "%", instance = n, agg = "last" })
        rows[#rows + 1] = { n, last.type, fmt.bytes(last.size_bytes), fmt.bytes(last.used_bytes), fmt.pct(dp), last.priority }
      end
      if #rows > 0 then
        ctx:table { title = "Swap devices (/proc/swaps)", columns = { "device", "type", "size", "used", "used%", "priority" }, rows = rows }
      end
    end
    ctx:summary(string.format("%s of %s swap used", fmt.pct(pct), fmt.bytes(total)))
  end,
}
