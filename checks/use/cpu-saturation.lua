--- CPU saturation: are runnable threads waiting for a CPU?
local fmt = require("fmt")
local tasks = require("tasks")
local cpu = require("cpu")
local hist = require("hist")

return {
  id = "use.cpu-saturation",
  title = "CPU saturation",
  methodology = "use", resource = "cpu", metric = "saturation",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.stat", "proc.loadavg", "proc.pressure", "proc.pids", "bpf.runqlat" },
  args = {
    warn_runnable = { type = "number", default = 1.5, help = "runnable threads per CPU that warns" },
    crit_runnable = { type = "number", default = 3, help = "runnable threads per CPU that is critical" },
    warn_psi_pct = { type = "number", default = 10, help = "% of the window some task waited for a CPU" },
    crit_psi_pct = { type = "number", default = 40, help = "critical PSI cpu some %" },
    warn_runq_p99_ms = { type = "number", default = 10, help = "run-queue latency p99 (ms) that warns" },
    crit_runq_p99_ms = { type = "number", default = 100, help = "critical run-queue latency p99 (ms)" },
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
      ctx:metric("runnable_per_cpu", mean / ncpu, { unit = "ratio", warn = args.warn_runnable, crit = args.crit_runnable, over = per_cpu })
      ctx:metric("runnable_max", stat.total:max("procs_running") - 1, { unit = "threads" })
      ctx:series("Runnable threads (procs_running, sonde excluded)", per, { unit = "threads", step = ctx.window.interval })
      saturated = mean / ncpu >= args.warn_runnable
    else
      ctx:unknown("runnable_per_cpu", why or "CPU count unknown")
    end

    local la = ctx.proc.loadavg()
    if la then
      ctx:metric("load1_per_cpu", la:last("load1") / math.max(ncpu, 1), { unit = "ratio" })
    end

    local psi, pwhy = ctx.proc.pressure("cpu")
    local psi_pct
    if psi and psi:seconds() > 0 and psi:delta("some_total") then
      local pct = 100 * psi:delta("some_total") / 1e6 / psi:seconds()
      psi_pct = pct
      local per = {}
      for i, r in ipairs(psi:rates("some_total")) do per[i] = r / 1e4 end -- us/s -> %
      ctx:metric("psi_some_pct", pct, { unit = "%", warn = args.warn_psi_pct, crit = args.crit_psi_pct, over = per })
      saturated = saturated or pct >= args.warn_psi_pct
    else
      ctx:unknown("psi_some_pct", pwhy or "fewer than two PSI samples in the window")
    end

    -- run-queue latency of every thread (BPF runqlat): how long a wakeup waits for a CPU
    local rq, rqwhy = ctx.bpf.runqlat()
    local rq_p99
    if rq and hist.count(rq.hist) > 0 then
      rq_p99 = hist.percentile(rq.hist, 99) / 1000
      ctx:metric("runq_p50_ms", hist.percentile(rq.hist, 50) / 1000, { unit = "ms" })
      ctx:metric("runq_p99_ms", rq_p99, { unit = "ms", warn = args.warn_runq_p99_ms, crit = args.crit_runq_p99_ms })
      hist.table(ctx, "Run-queue latency (runqlat)", rq.hist, "us")
      local rows = {}
      for i, t in ipairs(rq.tasks or {}) do
        if i > 10 then break end
        rows[#rows + 1] = { t.pid, t.tgid ~= 0 and t.tgid or "?", t.comm, t.count,
                            string.format("%.3f", t.total_us / 1e6),
                            string.format("%.2f", t.max_us / 1000) }
      end
      if #rows > 0 then
        ctx:table { title = "Threads that waited longest for a CPU (runqlat)", columns = { "tid", "pid", "thread", "waits", "total wait (s)", "longest (ms)" }, rows = rows }
      end
      saturated = saturated or rq_p99 >= args.warn_runq_p99_ms
    elseif rq then
      ctx:unknown("runq_p99_ms", "runqlat saw no thread wait for a CPU in the window")
    else
      ctx:unknown("runq_p99_ms", rqwhy)
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
        ctx:next("run-queue latency per task and a CPU profile (drill-down), or pidstat -w 1 for who waits")
      end
    end
    if stat then
      local mean = 0
      for _, s in ipairs(stat.total) do mean = mean + math.max(s.procs_running - 1, 0) end
      mean = mean / #stat.total
      local psi_txt = psi_pct and string.format("; some thread waited for a CPU %s of the time (PSI)", fmt.pct(psi_pct)) or ""
      local rq_txt = rq_p99 and string.format("; run-queue latency p99 %.2f ms", rq_p99) or ""
      ctx:summary(string.format("%.1f runnable threads on average for %d CPUs (%.2f per CPU)%s%s%s",
        mean, ncpu, mean / math.max(ncpu, 1), psi_txt, rq_txt, saturated and ": threads wait for a CPU" or ""))
    end
  end,
}
