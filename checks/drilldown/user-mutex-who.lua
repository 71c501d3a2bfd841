--- User lock contention, deeper: time threads blocked in futex waits (BPF
-- futexctn, filtered in the kernel to the processes the first window found in
-- futex code): a pthread mutex, rwlock, condition variable or semaphore that
-- must wait ends in futex(2). The lock-like part: waits of a contended glibc
-- mutex (FUTEX_WAIT expecting 2) and PI locks, as the mean number of threads
-- stalled per CPU; all futex waits (condition variables and idle worker pools
-- included, which are not contention) beside it; and the waits the kernel
-- failed (EDEADLK, EINVAL, EFAULT, ESRCH, EOWNERDEAD: not EAGAIN, ETIMEDOUT or
-- EINTR, the normal outcomes).
local hist = require("hist")
local locks = require("locks")
local fmt = require("fmt")

return {
  id = "drilldown.user-mutex-who",
  title = "Drill-down: who waits on which user lock",
  methodology = "drilldown", resource = "user-mutex", metric = "who",
  tags = { "drilldown", "tracing" },
  collect = { "proc.pids", "bpf.futexctn" },
  args = {
    -- Threads stalled on a contended mutex, per CPU: 0.25 is a quarter of the
    -- host's CPUs' worth of threads that could run and do not, because of one
    -- another. Uncontended mutexes never wait, so a healthy program is near 0.
    warn_wait_per_cpu = { type = "number", default = 0.25, help = "threads waiting for a contended user mutex on average, per CPU, that warns" },
    crit_wait_per_cpu = { type = "number", default = 1, help = "threads waiting for a contended user mutex on average, per CPU, that is critical" },
    warn_errors = { type = "number", default = 1, help = "failed futex waits that warn" },
  },

  run = function(ctx, args)
    local f, secs, ncpu, info = locks.drill(ctx, "futexctn", "mutex_wait_per_cpu")
    if not f then return end
    local lock_s = (f.lock_us or 0) / 1e6
    local all_s = (f.total_us or 0) / 1e6
    local per_cpu = lock_s / secs / ncpu
    local wait_st = ctx:metric("mutex_wait_per_cpu", per_cpu, { unit = "ratio", warn = args.warn_wait_per_cpu, crit = args.crit_wait_per_cpu, agg = "mean" })
    ctx:metric("mutex_waits_per_s", (f.lock_count or 0) / secs, { unit = "/s", agg = "mean" })
    ctx:metric("futex_wait_threads", all_s / secs, { unit = "threads", agg = "mean" })
    if hist.count(f.lock_hist) > 0 then
      ctx:metric("mutex_wait_p99_ms", hist.percentile(f.lock_hist, 99) / 1000, { unit = "ms", agg = "p99" })
      hist.table(ctx, "Contended mutex wait times (futexctn)", f.lock_hist, "us", info)
    end

    local by_pid = {}
    for _, t in ipairs(ctx.proc.tasks() or {}) do by_pid[t.pid] = t end
    local rows = {}
    for i, p in ipairs(f.processes or {}) do
      if i > 10 then break end
      rows[#rows + 1] = { p.pid, p.comm, p.lock_count, string.format("%.3f", p.lock_us / 1e6),
                          p.count, string.format("%.3f", p.total_us / 1e6), fmt.ms(p.max_us) }
    end
    if #rows > 0 then
      ctx:table { traced = info, title = "Processes waiting on futexes (futexctn)", columns = { "pid", "process", "mutex waits", "mutex wait (s)", "all futex waits", "all futex wait (s)", "longest (ms)" }, rows = rows }
    end
    rows = {}
    for i, l in ipairs(f.locks or {}) do
      if i > 10 then break end
      rows[#rows + 1] = { l.pid, l.comm, l.uaddr, l.lock_count, string.format("%.3f", l.lock_us / 1e6),
                          l.count, string.format("%.3f", l.total_us / 1e6) }
    end
    if #rows > 0 then
      ctx:table { traced = info, title = "Most waited-for futexes (futexctn)", columns = { "pid", "process", "futex address", "mutex waits", "mutex wait (s)", "all waits", "all wait (s)" }, rows = rows }
    end
    local inf = f.in_flight or {}
    if (inf.threads or 0) > 0 then
      ctx:note(string.format("%d threads were still blocked in a futex wait at the end (longest %.1f s): not counted above",
        inf.threads, (inf.longest_us or 0) / 1e6))
    end

    -- failed waits (the kernel counts none: only futexctn sees them)
    local nerr = f.errors or 0
    ctx:metric("futex_wait_errors", nerr, { unit = "count", warn = args.warn_errors, agg = "total" })
    local erows = {}
    for _, p in ipairs(f.processes or {}) do
      if (p.errors or 0) > 0 then erows[#erows + 1] = { p.pid, p.comm, p.errors, p.count } end
    end
    if #erows > 0 then
      ctx:table { traced = info, title = "Processes with failed futex waits (futexctn)", columns = { "pid", "process", "failed waits", "waits" }, rows = erows }
    end

    local saturated = wait_st ~= "ok"
    local top = (f.processes or {})[1]
    if saturated and top and lock_s > 0 then
      for i = 1, math.min(3, #f.processes) do
        local p = f.processes[i]
        if p.lock_us > 0 and (i == 1 or p.lock_us / 1e6 >= 0.05 * lock_s) then
          local t = by_pid[p.pid]
          ctx:culprit { pid = p.pid, comm = p.comm, cmdline = t and t.cmdline, share = p.lock_us / 1e6 / lock_s }
        end
      end
      local l = (f.locks or {})[1]
      ctx:next("find the lock: the futex address " .. (l and l.uaddr or "") .. " in the process's memory "
        .. "(gdb: info symbol ADDR), or an off-CPU profile (workload.process-why) for the code paths that wait")
    end
    ctx:summary(string.format("threads waited %.3f s on contended user mutexes in %.1f s (%.3f threads per CPU on average); "
      .. "%.3f s in all futex waits%s", lock_s, secs, per_cpu, all_s,
      saturated and top and string.format(": %s (pid %d) waited most", top.comm, top.pid) or ""))
  end,
}
