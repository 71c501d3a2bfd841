--- How the CPUs work: instructions per cycle, stalled cycles, LLC and branch misses
-- (perf_event counters, system-wide), plus the software counters (context switches,
-- migrations, page faults). Refines the CPU findings: a busy CPU at IPC < ~1 is
-- mostly waiting (often on memory), at IPC > ~1 mostly executing.
local cpu = require("cpu")
local fmt = require("fmt")

-- metric name -> the counters it needs
local HW = {
  ipc = { "instructions", "cycles" },
  stalled_frontend_pct = { "stalled-cycles-frontend", "cycles" },
  stalled_backend_pct = { "stalled-cycles-backend", "cycles" },
  llc_miss_pct = { "llc-misses", "llc-references" },
  branch_miss_pct = { "branch-misses", "branch-instructions" },
}
local HW_ORDER = { "ipc", "stalled_frontend_pct", "stalled_backend_pct", "llc_miss_pct", "branch_miss_pct" }
-- metric name, counter, the node_exporter family that has the same count (or none)
local SW = {
  { "context_switches_per_s", "context-switches", "node_context_switches_total" },
  { "cpu_migrations_per_s", "cpu-migrations" },
  { "page_faults_per_s", "page-faults", "node_vmstat_pgfault" },
}

return {
  id = "workload.cpu-how",
  title = "CPU: work or stalls (counters)",
  methodology = "workload", resource = "cpu", metric = "how",
  tags = { "default" },
  collect = { "perf.counters", "proc.stat" },
  args = {
    busy_pct = { type = "number", default = 50, help = "busy % above which a CPU's IPC is judged" },
    stall_ipc = { type = "number", default = 1.0, help = "IPC below which a busy CPU is called stall-bound" },
  },

  run = function(ctx, args)
    local ev, info = ctx.perf.counters()
    if not ev then
      for _, m in ipairs(HW_ORDER) do ctx:unknown(m, info) end
      for _, s in ipairs(SW) do ctx:unknown(s[1], info) end
      return
    end
    local secs = (info.counted_to_s or 0) - (info.counted_from_s or 0)
    if secs <= 0 then secs = info.window_s or 0 end

    -- Software counters: reported whatever the PMU.
    local sw_done = {}
    for _, s in ipairs(SW) do
      local c = ev[s[2]]
      if c and secs > 0 then
        ctx:metric(s[1], c.scaled / secs, { unit = "/s", agg = "mean", node_exporter = s[3] })
        sw_done[#sw_done + 1] = string.format("%s %s/s", s[2], fmt.num(math.floor(c.scaled / secs + 0.5)))
      else
        ctx:unknown(s[1], info.unsupported[s[2]] or "no counting time in the window")
      end
    end

    -- Hardware ratios: both counters of a ratio sit in one group, so they ran at the same
    -- time and their raw values divide without scaling error.
    local values, rows = {}, {}
    for _, m in ipairs(HW_ORDER) do
      local num, den = ev[HW[m][1]], ev[HW[m][2]]
      if num and den and den.value > 0 then
        local r = num.value / den.value
        if m ~= "ipc" then r = 100 * r end
        values[m] = r
      else
        local why = (not num and info.unsupported[HW[m][1]]) or (not den and info.unsupported[HW[m][2]])
          or string.format("%s counted 0 during the window: no ratio", HW[m][2])
        ctx:unknown(m, why)
      end
    end

    local busy
    local stat = ctx.proc.stat()
    if stat then busy = cpu.busy(cpu.breakdown(stat.total)) end

    if values.ipc then
      local judged = busy and 100 * busy >= args.busy_pct
      ctx:metric("ipc", values.ipc, { unit = "ratio", warn = judged and args.stall_ipc or nil, lower_is_worse = true, agg = "mean" })
    end
    for _, m in ipairs(HW_ORDER) do
      if m ~= "ipc" and values[m] then ctx:metric(m, values[m], { unit = "%", agg = "mean" }) end
    end

    -- Per CPU: cycles and instructions where both were counted.
    local cyc, ins = ev.cycles, ev.instructions
    if cyc and ins then
      local by_cpu = {}
      for _, c in ipairs(ins.per_cpu) do by_cpu[c.cpu] = c end
      for _, c in ipairs(cyc.per_cpu) do
        local i = by_cpu[c.cpu]
        if c.value and i and i.value and c.value > 0 then
          rows[#rows + 1] = { c.cpu, fmt.num(c.value), fmt.num(i.value), string.format("%.2f", i.value / c.value),
            string.format("%.0f%%", 100 * (c.running_ns or 0) / math.max(c.enabled_ns or 1, 1)) }
        end
      end
      if #rows > 0 then
        ctx:table { title = "Instructions per cycle by CPU", columns = { "cpu", "cycles", "instructions", "IPC", "counted" }, rows = rows }
      end
      if (cyc.running_ratio or 1) < 0.99 then
        ctx:note(string.format("the hardware counters were multiplexed: cycles counted %.0f%% of the time; values are scaled", 100 * cyc.running_ratio))
      end
    end

    local verdict
    if values.ipc then
      if busy and 100 * busy < args.busy_pct then
        verdict = string.format("IPC %.2f with the CPUs %s busy: too idle to call work or stalls", values.ipc, fmt.pct(100 * busy))
      elseif values.ipc < args.stall_ipc then
        verdict = string.format("IPC %.2f: busy CPUs mostly stalled (often waiting on memory)", values.ipc)
      else
        verdict = string.format("IPC %.2f: busy CPUs mostly executing instructions", values.ipc)
      end
    else
      verdict = "IPC unknown (" .. (info.unsupported.cycles or info.unsupported.instructions or "no cycles counted") .. ")"
    end
    ctx:summary(verdict .. (#sw_done > 0 and "; " .. table.concat(sw_done, ", ") or ""))
  end,
}
