--- CPU in interrupts: the share of each CPU's time in hard interrupt handlers
-- and softirqs (/proc/stat), and which interrupts and softirq types ran
-- (/proc/interrupts, /proc/softirqs): counters the kernel keeps anyway. The
-- time of each handler needs tracing every interrupt (hardirqs, softirqs):
-- the drill-down does it when a CPU is busy in interrupts (drilldown.interrupt-why).
local fmt = require("fmt")
local cpu = require("cpu")

-- { name, count } of a ctx.proc.interrupts()/softirqs() table, most first
local function ranked(t, label)
  local out = {}
  for name, v in pairs(t or {}) do
    local n = v.last and v.first and v.last - v.first
    if n and n > 0 then
      local desc = v.desc and v.desc ~= "" and (" " .. v.desc) or ""
      out[#out + 1] = { name = string.format(label, name) .. desc, count = n }
    end
  end
  table.sort(out, function(a, b) if a.count ~= b.count then return a.count > b.count end return a.name < b.name end)
  return out
end

return {
  id = "workload.cpu-what",
  title = "What the CPUs do in interrupts",
  methodology = "workload", resource = "cpu", metric = "what",
  tags = { "default", "proc" },
  collect = { "proc.stat", "proc.interrupts", "proc.softirqs" },
  args = {
    -- A CPU normally spends a few % in interrupts, even under network load when
    -- RSS spreads it over the CPUs. A fifth of one CPU's time is capacity its
    -- threads lose without any process showing it: the classic case is one NIC
    -- queue (or RPS off) steering all NET_RX to one CPU. Half is crit: that CPU
    -- is mostly an interrupt handler.
    warn_cpu_irq_pct = { type = "number", default = 20, help = "% of one CPU's time in hard + soft interrupts that warns" },
    crit_cpu_irq_pct = { type = "number", default = 50, help = "% of one CPU's time in interrupts that is critical" },
    top = { type = "number", default = 10, help = "rows per table" },
  },

  run = function(ctx, args)
    local stat, why = ctx.proc.stat()
    if not stat then
      ctx:unknown("cpu_irq_pct_max", why)
      return
    end
    local secs = math.max(ctx.window.seconds or 0, 1e-9)
    local worst, list = nil, {}
    local hard_sum, soft_sum, total_sum = 0, 0, 0
    for _, s in ipairs(stat.cpus) do
      local total = 0
      for _, f in ipairs({ "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal" }) do
        total = total + (s:delta(f) or 0)
      end
      if total > 0 then
        local e = { cpu = s.id, hard = 100 * (s:delta("irq") or 0) / total, soft = 100 * (s:delta("softirq") or 0) / total }
        list[#list + 1] = e
        hard_sum = hard_sum + (s:delta("irq") or 0)
        soft_sum = soft_sum + (s:delta("softirq") or 0)
        total_sum = total_sum + total
        if not worst or e.hard + e.soft > worst.hard + worst.soft then worst = e end
      end
    end
    if not worst then
      ctx:unknown("cpu_irq_pct_max", "the window holds fewer than two /proc/stat samples")
      return
    end
    ctx:metric("hardirq_pct", 100 * hard_sum / total_sum, { unit = "%", agg = "mean", node_exporter = "node_cpu_seconds_total" })
    ctx:metric("softirq_pct", 100 * soft_sum / total_sum, { unit = "%", agg = "mean", node_exporter = "node_cpu_seconds_total" })
    local irq_st = ctx:metric("cpu_irq_pct_max", worst.hard + worst.soft, { unit = "%", instance = "cpu" .. worst.cpu,
      warn = args.warn_cpu_irq_pct, crit = args.crit_cpu_irq_pct, agg = "mean", node_exporter = "node_cpu_seconds_total", help = "the CPU that served the most interrupts" })
    local rows, title = cpu.top_rows("Time in interrupts per CPU (/proc/stat, share of that CPU)", list, args.top, function(e) return e.hard + e.soft end,
      function(e) return { "cpu" .. e.cpu, fmt.pct(e.hard), fmt.pct(e.soft), fmt.pct(e.hard + e.soft) } end,
      function(rest)
        local h, so = 0, 0
        for _, e in ipairs(rest) do h, so = h + e.hard, so + e.soft end
        h, so = h / #rest, so / #rest
        return { string.format("the other %d (mean)", #rest), fmt.pct(h), fmt.pct(so), fmt.pct(h + so) }
      end, "busiest in interrupts")
    ctx:table { title = title,
                columns = { "CPU", "hard irq", "softirq", "total" }, rows = rows }

    -- which interrupts and softirqs ran, and how often (their time needs tracing)
    local irq_map, irq_info = ctx.proc.interrupts()
    local soft_map, soft_info = ctx.proc.softirqs()
    local irqs = ranked(irq_map, "irq %s")
    local softs = ranked(soft_map, "%s softirq")
    local trows = {}
    for _, group in ipairs({ softs, irqs }) do
      for i, t in ipairs(group) do
        if i > args.top then break end
        trows[#trows + 1] = { t.name, fmt.num(t.count), fmt.num(t.count / secs) }
      end
    end
    if #trows > 0 then
      ctx:table { title = "Softirqs and interrupts that ran (/proc/softirqs, /proc/interrupts)",
                  columns = { "type", "count", "per second" }, rows = trows }
    end
    -- a file longer than sonde reads (many CPUs, many IRQ lines): what is past the cut is not counted
    for _, f in ipairs({ { "/proc/interrupts", irq_info, "the local timer and IPI lines at its end among them" },
                         { "/proc/softirqs", soft_info, "" } }) do
      if type(f[2]) == "table" and f[2].cut then
        ctx:note(string.format("%s is longer than sonde reads (%d bytes kept, 1 MiB): its lines past them%s are not counted",
          f[1], f[2].bytes or 0, f[3] ~= "" and ", " .. f[3] .. "," or ""))
      end
    end
    ctx:note("the irq and softirq times of /proc/stat are exact on kernels with CONFIG_IRQ_TIME_ACCOUNTING, "
      .. "else sampled at the timer tick; the time of each handler is traced by the drill-down")

    local hot = irq_st ~= "ok"
    local top_soft = softs[1]
    ctx:summary(string.format("cpu%d spends %s of its time in interrupts (%s hard, %s soft)%s%s", worst.cpu,
      fmt.pct(worst.hard + worst.soft), fmt.pct(worst.hard), fmt.pct(worst.soft),
      top_soft and string.format("; most frequent: %s, %s/s", top_soft.name, fmt.num(top_soft.count / secs)) or "",
      hot and ": its threads lose that capacity; spread the interrupts (irqbalance, RSS/RPS, smp_affinity)" or ""))
    if hot then
      ctx:next("which device or flow: /proc/interrupts and /proc/net/softnet_stat per CPU; the NIC's queues (ethtool -l) and RPS settings")
    end
  end,
}
