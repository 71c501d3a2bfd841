--- Kernel lock contention, deeper: time threads waited to take a contended
-- kernel lock (mutexes, rw-semaphores, spinlocks, ...), from the
-- lock:contention_begin/end tracepoints (BPF klockstat, filtered in the kernel
-- to the processes the first window found spinning): by lock type, by the
-- function taking the lock, by process. The wait as the mean number of threads
-- stalled on a kernel lock, per CPU. Uncontended acquisitions never fire the
-- tracepoints.
local fmt = require("fmt")
local locks = require("locks")
local hist = require("hist")

return {
  id = "drilldown.kernel-mutex-who",
  title = "Drill-down: who waits for which kernel lock",
  methodology = "drilldown", resource = "kernel-mutex", metric = "who",
  tags = { "drilldown", "tracing" },
  collect = { "proc.pids", "bpf.klockstat" },
  args = {
    -- Wait time as threads stalled per CPU: 0.1 is a tenth of the host's CPU
    -- capacity held up by kernel locks on average, far above the microseconds
    -- a healthy host shows (most contended waits are spinlocks of a few us).
    warn_wait_per_cpu = { type = "number", default = 0.1, help = "threads waiting for a kernel lock on average, per CPU, that warns" },
    crit_wait_per_cpu = { type = "number", default = 0.5, help = "threads waiting for a kernel lock on average, per CPU, that is critical" },
  },

  run = function(ctx, args)
    local k, secs, ncpu, info = locks.drill(ctx, "klockstat", "lock_wait_per_cpu")
    if not k then return end
    local wait_s = (k.total_us or 0) / 1e6
    local per_cpu = wait_s / secs / ncpu
    local wait_st = ctx:metric("lock_wait_per_cpu", per_cpu, { unit = "ratio", warn = args.warn_wait_per_cpu, crit = args.crit_wait_per_cpu, agg = "mean" })
    ctx:metric("lock_waits_per_s", (k.count or 0) / secs, { unit = "/s", agg = "mean" })
    ctx:metric("lock_wait_max_ms", (k.max_us or 0) / 1000, { unit = "ms", agg = "peak" })
    if hist.count(k.hist) > 0 then
      ctx:metric("lock_wait_p99_us", hist.percentile(k.hist, 99) / 1000, { unit = "us", agg = "p99" })
      hist.table(ctx, "Kernel lock wait times (klockstat)", k.hist, "ns", info)
    end

    local rows = {}
    for _, t in ipairs(k.types or {}) do
      rows[#rows + 1] = { t.type, t.count, string.format("%.3f", t.total_us / 1000),
                          string.format("%.1f", t.count > 0 and t.total_us / t.count or 0),
                          string.format("%.3f", t.max_us / 1000) }
    end
    if #rows > 0 then
      ctx:table { traced = info, title = "Kernel lock waits by lock type (klockstat)", columns = { "type", "waits", "total (ms)", "mean (us)", "longest (ms)" }, rows = rows }
    end
    rows = {}
    for i, c in ipairs(k.callers or {}) do
      if i > 15 then break end
      rows[#rows + 1] = { c.caller, c.type, c.count, string.format("%.3f", c.total_us / 1000),
                          string.format("%.3f", c.max_us / 1000), table.concat(c.stack or {}, " <- ") }
    end
    if #rows > 0 then
      ctx:table { traced = info, title = "Kernel lock waits by caller (klockstat)", columns = { "caller", "type", "waits", "total (ms)", "longest (ms)", "stack (innermost first)" }, code = { "caller", "stack (innermost first)" }, rows = rows }
    end
    local by_pid = {}
    for _, t in ipairs(ctx.proc.tasks() or {}) do by_pid[t.pid] = t end
    rows = {}
    for i, p in ipairs(k.processes or {}) do
      if i > 10 then break end
      rows[#rows + 1] = { p.pid, p.comm, p.count, string.format("%.3f", p.total_us / 1000),
                          string.format("%.3f", p.max_us / 1000), fmt.pct(wait_s > 0 and 100 * p.total_us / 1e6 / wait_s or 0) }
    end
    if #rows > 0 then
      ctx:table { traced = info, title = "Processes waiting most for kernel locks (klockstat)", columns = { "pid", "process", "waits", "total (ms)", "longest (ms)", "of all waits" }, rows = rows }
    end
    local nm = k.not_measured or {}
    if (nm.nested or 0) + (nm.unmatched or 0) > 0 then
      ctx:note(string.format("not measured: %d nested waits (another lock's wait already open on the thread), "
        .. "%d ends without a begin (begun before tracing)", nm.nested or 0, nm.unmatched or 0))
    end
    if k.kernel_symbols and k.kernel_symbols ~= "ok" then
      ctx:note("callers are [unknown]: " .. k.kernel_symbols)
    end

    local saturated = wait_st ~= "ok"
    local top = (k.processes or {})[1]
    if saturated and top and wait_s > 0 then
      for i = 1, math.min(3, #k.processes) do
        local p = k.processes[i]
        local t = by_pid[p.pid]
        if i > 1 and p.total_us / 1e6 < 0.05 * wait_s then break end
        ctx:culprit { pid = p.pid, comm = p.comm, cmdline = t and t.cmdline, share = p.total_us / 1e6 / wait_s,
                      kernel_thread = t and t.kernel_thread }
      end
      local c = (k.callers or {})[1]
      ctx:next("the callers above are where the lock is taken: perf lock contention -ab for lock addresses and owners"
        .. (c and (", starting with " .. c.caller .. " (" .. c.type .. ")") or ""))
    end
    local ty = (k.types or {})[1]
    ctx:summary(string.format("threads waited %.3f s for contended kernel locks in %.1f s (%.3f threads per CPU on average, %s waits)%s%s",
      wait_s, secs, per_cpu, fmt.num(k.count or 0),
      ty and string.format("; most in %s (%.1f ms)", ty.type, ty.total_us / 1000) or "",
      saturated and top and string.format(": %s (pid %d) waited most", top.comm, top.pid) or ""))
  end,
}
