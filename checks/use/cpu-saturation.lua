--- CPU saturation: are runnable threads waiting for a CPU? From counters the
-- kernel keeps anyway: runnable threads (/proc/stat), PSI, the run delay of
-- every CPU's run queue (/proc/schedstat) and of every process
-- (/proc/PID/schedstat). Run-queue latency per wakeup (runqlat) hooks the
-- scheduler, a hot path: it runs in the drill-down window (drilldown.cpu-why).
local fmt = require("fmt")
local tasks = require("tasks")
local cpu = require("cpu")
local psi = require("psi")

return {
  id = "use.cpu-saturation",
  title = "CPU saturation",
  methodology = "use", resource = "cpu", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.stat", "proc.loadavg", "proc.pressure", "proc.pids", "proc.schedstat" },
  args = {
    warn_runnable = { type = "number", default = 1.5, help = "runnable threads per CPU that warns" },
    crit_runnable = { type = "number", default = 3, help = "runnable threads per CPU that is critical" },
    warn_psi_pct = { type = "number", default = 10, help = "% of the window some task waited for a CPU" },
    crit_psi_pct = { type = "number", default = 40, help = "critical PSI cpu some %" },
    -- The mean wait of a timeslice for its CPU (/proc/schedstat): tens of us on a
    -- healthy host; with two CPU-bound threads per CPU each waits about one
    -- slice of the other (a few ms).
    warn_runq_wait_ms = { type = "number", default = 5, help = "mean run-queue wait per timeslice (ms) that warns" },
    crit_runq_wait_ms = { type = "number", default = 50, help = "critical mean run-queue wait per timeslice (ms)" },
    top_cpus = { type = "number", default = 16, help = "CPUs with a row in the run-queue table (the most waited on; the others share one row)" },
  },

  run = function(ctx, args)
    local ncpu = ctx.host.cpus
    local stat, why = ctx.proc.stat()
    local saturated = false
    if stat and ncpu > 0 then
      -- procs_running counts the reader too: sonde itself was running at each read.
      local per, sum = {}, 0
      for i, s in ipairs(stat.total) do
        per[i] = math.max(s.procs_running - 1, 0)
        sum = sum + per[i]
      end
      local mean = sum / #per
      local per_cpu = {}
      for i, v in ipairs(per) do per_cpu[i] = v / ncpu end
      local st = ctx:metric("runnable_per_cpu", mean / ncpu, { unit = "ratio", warn = args.warn_runnable, crit = args.crit_runnable, over = per_cpu, agg = "mean", node_exporter = "node_procs_running" })
      ctx:metric("runnable_max", stat.total:max("procs_running") - 1, { unit = "threads", agg = "peak", node_exporter = "node_procs_running" })
      ctx:series("Runnable threads (procs_running, sonde excluded)", per, { unit = "threads", step = ctx.window.interval })
      saturated = st ~= "ok"
    else
      ctx:unknown("runnable_per_cpu", why or "CPU count unknown")
    end

    local la = ctx.proc.loadavg()
    if la then
      ctx:metric("load1_per_cpu", la:last("load1") / math.max(ncpu, 1), { unit = "ratio", agg = "last", node_exporter = "node_load1" })
    end

    local pr, pwhy = ctx.proc.pressure("cpu")
    local psi_pct = psi.window_pct(pr, "some_total")
    if psi_pct then
      local st = ctx:metric("psi_some_pct", psi_pct, { unit = "%", warn = args.warn_psi_pct, crit = args.crit_psi_pct, over = psi.interval_pcts(pr, "some_total"), agg = "mean", node_exporter = "node_pressure_cpu_waiting_seconds_total" })
      saturated = saturated or st ~= "ok"
    else
      ctx:unknown("psi_some_pct", pwhy or "fewer than two PSI samples in the window")
    end

    -- run delay of every CPU's run queue (/proc/schedstat): the time runnable
    -- threads waited, exact rather than sampled, and per timeslice
    local ss, sswhy = ctx.proc.schedstat()
    local wait_ms, most_txt
    if ss and #ss.cpus > 0 and ss.seconds > 0 then
      local wait, slices = 0, 0
      for _, c in ipairs(ss.cpus) do
        wait = wait + c.wait_s
        slices = slices + c.slices
      end
      ctx:metric("runq_waiting_per_cpu", wait / ss.seconds / math.max(ncpu, 1), { unit = "ratio", agg = "mean", node_exporter = "node_schedstat_waiting_seconds_total" })
      if slices > 0 then
        wait_ms = 1000 * wait / slices
        local st = ctx:metric("runq_wait_ms", wait_ms, { unit = "ms", warn = args.warn_runq_wait_ms, crit = args.crit_runq_wait_ms, agg = "mean", node_exporter = "node_schedstat_waiting_seconds_total", help = "the wait of a timeslice for its CPU" })
        saturated = saturated or st ~= "ok"
      end
      -- the run queue threads waited on most: on a host of many CPUs, a few
      -- crowded ones (pinned threads, a cpuset) vanish in the mean
      local most
      for _, c in ipairs(ss.cpus) do
        if not most or c.wait_s > most.wait_s then most = c end
      end
      ctx:metric("runq_waiting_max", most.wait_s / ss.seconds, { unit = "ratio", instance = "cpu" .. most.cpu, agg = "mean",
        node_exporter = "node_schedstat_waiting_seconds_total", help = "threads waiting on the most waited-on CPU, on average" })
      if #ss.cpus > 1 and most.wait_s / ss.seconds >= 1 then
        most_txt = string.format("; most on cpu%d (%.1f threads waiting on average, %s ms a timeslice)", most.cpu,
          most.wait_s / ss.seconds, most.slices > 0 and string.format("%.2f", 1000 * most.wait_s / most.slices) or "?")
      end
      local function cells(label, run_s, wait_s, n)
        return { label, fmt.pct(100 * run_s / ss.seconds), fmt.pct(100 * wait_s / ss.seconds),
                 fmt.num(n), n > 0 and string.format("%.3f", 1000 * wait_s / n) or "-" }
      end
      local rows, title = cpu.top_rows("Run queues (/proc/schedstat): time run and waited, per CPU", ss.cpus, args.top_cpus, function(c) return c.wait_s end,
        function(c) return cells("cpu" .. c.cpu, c.run_s, c.wait_s, c.slices) end,
        function(rest)
          local run, w, sl = 0, 0, 0
          for _, c in ipairs(rest) do run, w, sl = run + c.run_s, w + c.wait_s, sl + c.slices end
          -- per CPU, so that the row reads like the others; the mean wait is over all their slices
          local r = cells(string.format("the other %d (mean)", #rest), run / #rest, w / #rest, sl / #rest)
          r[5] = sl > 0 and string.format("%.3f", 1000 * w / sl) or "-"
          return r
        end, "most waited on")
      ctx:table { title = title,
                  columns = { "CPU", "ran", "threads waited (summed)", "timeslices", "mean wait (ms)" }, rows = rows }
      if ss.cut then
        ctx:note(string.format("/proc/schedstat is longer than sonde reads (1 MiB): the run-queue figures are of its first %d of %d CPUs",
          #ss.cpus, ncpu))
      end
    else
      ctx:unknown("runq_wait_ms", sswhy or "no CPU in /proc/schedstat")
    end

    local list = ctx.proc.tasks()
    if list and stat then
      local hz = ctx.host.clk_tck
      local b = cpu.breakdown(stat.total)
      local busy_s = (b.total - b.idle - b.iowait) / hz
      local top = tasks.top(list, function(t) return tasks.cpu_seconds(t, hz) end, 5)
      local rows = {}
      for _, e in ipairs(top) do
        local wait = e.task.runq_wait_s
        rows[#rows + 1] = { e.task.pid, e.task.comm, string.format("%.2f", e.value),
                            fmt.pct(100 * e.value / math.max(ctx.window.seconds, 1e-9)),
                            wait and string.format("%.2f", wait) or "?", e.task.cmdline }
      end
      -- run-queue wait: /proc/PID/schedstat, the main thread's time runnable but not running
      ctx:table { title = "Top processes by CPU time", columns = { "pid", "process", "CPU s", "of one CPU", "waited for a CPU (s)", "command" }, rows = rows }
      local waiting = tasks.top(list, function(t) return t.runq_wait_s end, 5)
      if #waiting > 0 then
        local wrows = {}
        for _, e in ipairs(waiting) do
          wrows[#wrows + 1] = { e.task.pid, e.task.comm, string.format("%.2f", e.value),
                                fmt.pct(100 * e.value / math.max(ctx.window.seconds, 1e-9)) }
        end
        ctx:table { title = "Who waited for a CPU (run-queue wait of the main thread)", columns = { "pid", "process", "waited (s)", "of the window" }, rows = wrows }
      end
      if saturated then
        tasks.blame(ctx, top, busy_s, 3)
        ctx:next("run-queue latency per wakeup (runqlat) and a CPU profile (drill-down), or pidstat -w 1 for who waits")
      end
    end
    if stat then
      local mean = 0
      for _, s in ipairs(stat.total) do mean = mean + math.max(s.procs_running - 1, 0) end
      mean = mean / #stat.total
      local psi_txt = psi_pct and string.format("; some thread waited for a CPU %s of the time (PSI)", fmt.pct(psi_pct)) or ""
      local rq_txt = wait_ms and string.format("; a timeslice waited %.2f ms for its CPU on average", wait_ms) or ""
      ctx:summary(string.format("%.1f runnable threads on average for %d CPUs (%.2f per CPU)%s%s%s%s",
        mean, ncpu, mean / math.max(ncpu, 1), psi_txt, rq_txt, most_txt or "",
        saturated and ": threads wait for a CPU" or ""))
    end
  end,
}
