--- CPU in interrupts, deeper: the time of each hard interrupt handler and
-- softirq type, per CPU (BPF hardirqs, softirqs). Both hook every interrupt:
-- they run in the drill-down window, when the first window's counters
-- (workload.cpu-what) show a CPU busy in interrupts.
local hist = require("hist")
local fmt = require("fmt")
local cpu = require("cpu")
local bpf = require("bpf")

return {
  id = "drilldown.interrupt-why",
  title = "Drill-down: which interrupt handlers take the CPU time",
  methodology = "drilldown", resource = "interrupt", metric = "why",
  tags = { "drilldown", "tracing" },
  collect = { "bpf.hardirqs", "bpf.softirqs" },
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
    local hard, hinfo = ctx.bpf.hardirqs()
    local soft, sinfo = ctx.bpf.softirqs()
    if not hard then ctx:unknown("hardirq_pct", hinfo) end
    if not soft then ctx:unknown("softirq_pct", sinfo) end
    if not hard and not soft then
      ctx:unknown("cpu_irq_pct_max", "neither interrupt tool ran: " .. tostring(hinfo) .. "; " .. tostring(sinfo))
      return
    end
    local hspan, sspan = bpf.traced_s(ctx, hard and hinfo), bpf.traced_s(ctx, soft and sinfo)
    -- what the tables of both tools cover: the shorter of the two spans
    local info_of = { hardirq = hard and hinfo, softirq = soft and sinfo }
    local both = (not soft or (hard and hspan <= sspan)) and hinfo or sinfo

    -- per CPU: % of its time in each type; the type names carry their kind
    local cpus, ncpu = {}, math.max(ctx.host.cpus or 0, 1)
    local function cpu_of(c)
      local e = cpus[c]
      if not e then
        e = { cpu = c, hard = 0, soft = 0, by = {} }
        cpus[c] = e
      end
      return e
    end
    local types = {}
    -- one kind's sources (handlers or softirq types): a row each, and their share of each CPU
    local function add(kind, key, srcs, name_of, secs)
      for _, src in ipairs(srcs or {}) do
        local name = name_of(src)
        types[#types + 1] = { name = name, kind = kind, count = src.count, ns = src.total_ns, hist = src.hist, span = secs }
        for _, pc in ipairs(src.cpus or {}) do
          local e = cpu_of(pc.cpu)
          local pct = 100 * pc.total_ns / 1e9 / secs
          e[key] = e[key] + pct
          e.by[#e.by + 1] = { name = name, pct = pct }
        end
      end
    end
    if hard then
      add("hardirq", "hard", hard.irqs, function(irq)
        return string.format("irq %d %s", irq.irq, irq.name ~= "" and irq.name or "?")
      end, hspan)
      ctx:metric("hardirq_pct", 100 * (hard.total_ns or 0) / 1e9 / hspan / ncpu, { unit = "%", agg = "mean", node_exporter = "node_cpu_seconds_total" })
    end
    if soft then
      add("softirq", "soft", soft.vecs, function(v) return v.name .. " softirq" end, sspan)
      ctx:metric("softirq_pct", 100 * (soft.total_ns or 0) / 1e9 / sspan / ncpu, { unit = "%", agg = "mean", node_exporter = "node_cpu_seconds_total" })
    end

    -- the CPU that spends the most time in interrupts
    local list = {}
    for _, e in pairs(cpus) do
      table.sort(e.by, function(a, b) return a.pct > b.pct end)
      list[#list + 1] = e
    end
    table.sort(list, function(a, b)
      if a.hard + a.soft ~= b.hard + b.soft then return a.hard + a.soft > b.hard + b.soft end
      return a.cpu < b.cpu
    end)
    local worst = list[1]
    local irq_st
    if worst then
      irq_st = ctx:metric("cpu_irq_pct_max", worst.hard + worst.soft, { unit = "%", instance = "cpu" .. worst.cpu,
        warn = args.warn_cpu_irq_pct, crit = args.crit_cpu_irq_pct, agg = "mean", node_exporter = "node_cpu_seconds_total", help = "the CPU that served the most interrupts" })
    else
      ctx:metric("cpu_irq_pct_max", 0, { unit = "%", warn = args.warn_cpu_irq_pct, crit = args.crit_cpu_irq_pct, agg = "mean", node_exporter = "node_cpu_seconds_total", help = "the CPU that served the most interrupts" })
    end

    local function cells(label, h, so, top)
      return { label, hard and fmt.pct(h) or "?", soft and fmt.pct(so) or "?", fmt.pct(h + so),
               top and string.format("%s (%s)", top.name, fmt.pct(top.pct)) or "" }
    end
    local rows, title = cpu.top_rows("Time in interrupts per CPU (share of that CPU)", list, args.top, function(e) return e.hard + e.soft end,
      function(e) return cells("cpu" .. e.cpu, e.hard, e.soft, e.by[1]) end,
      function(rest)
        -- their means, and the source that took the most of their time
        local h, so, by, largest = 0, 0, {}, nil
        for _, e in ipairs(rest) do
          h, so = h + e.hard, so + e.soft
          for _, b in ipairs(e.by) do by[b.name] = (by[b.name] or 0) + b.pct / #rest end
        end
        for name, pct in pairs(by) do
          if not largest or pct > largest.pct or (pct == largest.pct and name < largest.name) then
            largest = { name = name, pct = pct }
          end
        end
        return cells(string.format("the other %d (mean)", #rest), h / #rest, so / #rest, largest)
      end, "busiest in interrupts")
    if #rows > 0 then
      ctx:table { traced = both, title = title,
                  columns = { "CPU", "hard irq", "softirq", "total", "largest" }, rows = rows }
    end

    table.sort(types, function(a, b) return a.ns > b.ns end)
    local trows = {}
    for i, t in ipairs(types) do
      if i > args.top then break end
      local p99 = hist.percentile(t.hist or {}, 99)
      trows[#trows + 1] = { t.name, fmt.num(t.count), string.format("%.2f", t.ns / 1e6),
                            fmt.pct(100 * t.ns / 1e9 / t.span), string.format("%.0f", t.ns / math.max(t.count, 1)),
                            p99 and string.format("%.0f", p99) or "?" }
    end
    if #trows > 0 then
      ctx:table { traced = both, title = "Interrupt types by time (hardirqs, softirqs)",
                  columns = { "type", "runs", "total ms", "of one CPU", "mean ns", "p99 ns" }, rows = trows }
      if types[1].hist and hist.count(types[1].hist) > 0 then
        hist.table(ctx, "Run time of " .. types[1].name, types[1].hist, "ns", info_of[types[1].kind])
      end
    end
    if hard then
      ctx:note("hardirqs sees device interrupts (handlers in irqaction); the local timer, IPIs and NMIs run no irqaction and are not in it (see /proc/interrupts)")
    end

    if worst then
      local parts = {}
      for i, b in ipairs(worst.by) do
        if i > 2 then break end
        parts[#parts + 1] = string.format("%s %s", b.name, fmt.pct(b.pct))
      end
      local hot = irq_st ~= "ok"
      ctx:summary(string.format("cpu%d spends %s of its time in interrupts (%s)%s", worst.cpu,
        fmt.pct(worst.hard + worst.soft), table.concat(parts, ", "),
        hot and ": its threads lose that capacity; spread the interrupts (irqbalance, RSS/RPS, smp_affinity)" or ""))
      if hot then
        ctx:next("which device or flow: /proc/interrupts and /proc/net/softnet_stat per CPU; the NIC's queues (ethtool -l) and RPS settings")
      end
    else
      ctx:summary("no interrupt handler or softirq ran while traced")
    end
  end,
}
