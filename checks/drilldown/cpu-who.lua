--- One CPU hot, deeper: which threads keep it busy (profile samples per thread) and which processes ran on it last.
local cpu = require("cpu")
local fmt = require("fmt")
local bpf = require("bpf")
local tasks = require("tasks")

return {
  id = "drilldown.cpu-who",
  title = "Drill-down: which threads keep the hot CPU busy",
  methodology = "drilldown", resource = "cpu", metric = "who",
  tags = { "drilldown", "proc", "tracing" },
  collect = { "bpf.profile", "proc.stat", "proc.pids" },
  args = {
    top = { type = "number", default = 10, help = "threads and processes listed" },
  },

  run = function(ctx, args)
    -- the hot CPU of this (drill-down) window
    local hot, hot_busy
    local stat, swhy = ctx.proc.stat()
    if stat then
      for _, s in ipairs(stat.cpus) do
        local u = cpu.busy(cpu.breakdown(s))
        if u and (not hot_busy or 100 * u > hot_busy) then hot, hot_busy = s.id, 100 * u end
      end
    end
    if hot then
      ctx:metric("hot_cpu_busy_pct", hot_busy, { unit = "%", instance = "cpu" .. hot, agg = "mean", node_exporter = "node_cpu_seconds_total" })
    else
      ctx:unknown("hot_cpu_busy_pct", swhy or "the drill-down window holds fewer than two /proc/stat samples")
    end

    -- on-CPU samples per thread: the profile counts per (tgid, thread comm, stack);
    -- summed over the stacks, a (tgid, comm) pair is a thread or the threads of a
    -- process that share a name
    local busiest
    local p, pwhy = ctx.bpf.profile()
    if p and (p.total or 0) > 0 then
      local hz = p.frequency_hz or 49
      local traced = bpf.traced_s(ctx, pwhy)
      -- the process's own name from /proc (the profile names threads)
      local pcomm = {}
      for _, pr in ipairs(p.processes or {}) do pcomm[pr.tgid] = pr.comm end
      for _, t in ipairs(ctx.proc.tasks() or {}) do pcomm[t.pid] = t.comm end
      local by, order = {}, {}
      for _, st in ipairs(p.stacks or {}) do
        local k = tostring(st.tgid) .. "\0" .. (st.comm or "?")
        local e = by[k]
        if not e then
          e = { tgid = st.tgid, comm = st.comm or "?", count = 0 }
          by[k] = e
          order[#order + 1] = e
        end
        e.count = e.count + st.count
      end
      table.sort(order, function(a, b)
        if a.count ~= b.count then return a.count > b.count end
        return a.tgid < b.tgid
      end)
      local rows = {}
      for i, e in ipairs(order) do
        if i > args.top then break end
        rows[#rows + 1] = { e.tgid, pcomm[e.tgid] or "?", e.comm, e.count, fmt.pct(100 * e.count / p.total),
                            string.format("%.2f", e.count / hz / traced) }
      end
      ctx:table { title = "Threads on a CPU (profile samples, drill-down window)", traced = pwhy,
        columns = { "pid", "process", "thread", "samples", "of the samples", "CPUs used" }, rows = rows }
      busiest = order[1]
      if busiest then
        busiest.cpus = busiest.count / hz / traced
        busiest.pcomm = pcomm[busiest.tgid]
        ctx:metric("busiest_thread_cpus", busiest.cpus, { unit = "CPUs", instance = busiest.comm, agg = "mean" })
        -- share: of one CPU's capacity over the time traced (the hot CPU is one CPU)
        ctx:culprit { pid = busiest.tgid, comm = busiest.pcomm or busiest.comm, share = math.min(busiest.cpus, 1) }
      end
      if (p.other and p.other.count or 0) > 0 then
        ctx:note(string.format("profile: %d samples in stacks beyond the top %d are not in the thread table",
          p.other.count, #(p.stacks or {})))
      end
    else
      ctx:unknown("busiest_thread_cpus", pwhy or "the profile saw no thread on a CPU in the drill-down window")
    end

    -- the processes the kernel last ran on the hot CPU (processor at the end of the window)
    local list, twhy = ctx.proc.tasks()
    local on_hot = {}
    if list and hot then
      for _, t in ipairs(list) do
        if not t.self and not t.exited and t.processor == hot and (t.cpu_share or 0) > 0 then
          on_hot[#on_hot + 1] = t
        end
      end
      on_hot = tasks.best(on_hot, math.max(args.top, 1), function(a, b)
        if a.cpu_share ~= b.cpu_share then return a.cpu_share > b.cpu_share end
        return a.pid < b.pid
      end)
      local rows = {}
      for i, t in ipairs(on_hot) do
        if i > args.top then break end
        rows[#rows + 1] = { t.pid, t.comm, t.threads or "?", fmt.pct(100 * t.cpu_share) }
      end
      ctx:table { title = string.format("Processes last seen on cpu%d (processor in /proc/PID/stat at the end of the drill-down window)", hot),
        columns = { "pid", "process", "threads", "CPU used (of one CPU)" }, rows = rows }
      if not busiest and on_hot[1] then
        local t = on_hot[1]
        ctx:culprit { pid = t.pid, comm = t.comm, cmdline = t.cmdline, share = math.min(t.cpu_share, 1) }
      end
    elseif not list then
      ctx:unknown("processes_on_hot_cpu", twhy)
    end

    local hot_txt = hot and string.format("cpu%d %s busy", hot, fmt.pct(hot_busy)) or "the hot CPU unknown"
    if busiest then
      ctx:summary(string.format("%s over the drill-down window; busiest thread: %s of %s (pid %d), %.2f CPUs (%d samples)",
        hot_txt, busiest.comm, busiest.pcomm or "?", busiest.tgid, busiest.cpus, busiest.count))
    elseif on_hot[1] then
      ctx:summary(string.format("%s over the drill-down window; last on it and busiest: %s, %s of a CPU",
        hot_txt, fmt.task(on_hot[1]), fmt.pct(100 * on_hot[1].cpu_share)))
    else
      ctx:summary(hot_txt .. " over the drill-down window; no thread was seen keeping it busy")
    end
    if busiest then
      ctx:next(string.format("the busiest thread's code: perf top -p %d, or the hottest stacks in drilldown.cpu-why", busiest.tgid))
    end
  end,
}
