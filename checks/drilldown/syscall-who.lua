--- Syscall-heavy, deeper: every syscall of the processes the first window
-- named (BPF syscount, filtered in the kernel to them): which syscalls, how
-- long in them, which fail.
local fmt = require("fmt")
local sc = require("syscount")
local bpf = require("bpf")

-- "read", or "#435" for a number the build host's headers did not name
local function sc_name(e)
  return e.name or ("#" .. tostring(e.id))
end

local function errno_label(e)
  return e.errno_name or ("errno " .. tostring(e.errno))
end

local function secs(us)
  return string.format("%.3f", (us or 0) / 1e6)
end

return {
  id = "drilldown.syscall-who",
  title = "Drill-down: which syscalls, and how long in them",
  methodology = "drilldown", resource = "syscall", metric = "who",
  tags = { "drilldown", "tracing" },
  collect = { "bpf.syscount" },
  args = {
    -- Crossing into the kernel and back costs roughly 0.1-0.5 us per syscall
    -- (more with Spectre/Meltdown mitigations and in VMs) before any work is
    -- done: at 100k syscalls/s per CPU that is 1-5% of every CPU spent on the
    -- crossing alone, and batching (larger buffers, readv/writev, io_uring,
    -- sendmmsg) usually wins back most of it. Busy servers rarely go past it.
    warn_per_cpu = { type = "number", default = 100000, help = "syscalls per second per CPU that warns" },
    top = { type = "number", default = 10, help = "rows per table" },
  },

  run = function(ctx, args)
    local d, info = ctx.bpf.syscount()
    if not d then
      ctx:unknown("syscalls_per_s", info)
      return
    end
    local ncpu = math.max(ctx.host.cpus or 1, 1)
    -- the tool saw a little more than the window: rate over what it saw
    local traced = bpf.traced_s(ctx, info)
    local total = d.syscalls or 0
    local rate = total / traced
    local only = info.filtered_to
    if only and #only > 0 then
      local pids = {}
      for i, p in ipairs(only) do pids[i] = tostring(p) end
      ctx:note(string.format("traced only pid %s (the first window's culprits), filtered in the kernel; over %.1f s of the window",
        table.concat(pids, ", "), traced))
    end
    local high = sc.rate(ctx, rate, ncpu, args.warn_per_cpu)
    if total == 0 then
      ctx:summary("no system call completed in the window (sonde's own are not counted)")
      return
    end
    ctx:metric("syscall_error_pct", 100 * (d.errors or 0) / total, { unit = "%", agg = "mean" })
    if (info.drops or 0) > 0 then
      ctx:note(string.format("syscount lost %d map entries or records (full maps): the tables below miss some processes or failures", info.drops))
    end

    local rows = {}
    for i, e in ipairs(d.by_syscall or {}) do
      if i > args.top then break end
      rows[#rows + 1] = { sc_name(e), fmt.num(e.count), fmt.pct(100 * e.count / total),
                          fmt.num(e.errors), secs(e.total_us),
                          string.format("%.2f", e.total_us / math.max(e.count, 1)) }
    end
    ctx:table { traced = info, title = "Top syscalls by count (syscount)",
                columns = { "syscall", "calls", "share", "errors", "time in it (s)", "mean (us)" }, rows = rows }

    local procs = d.processes or {}
    rows = {}
    for i, p in ipairs(procs) do
      if i > args.top then break end
      rows[#rows + 1] = { p.pid, p.comm, fmt.num(p.count), fmt.num(p.count / traced), fmt.num(p.errors), secs(p.total_us) }
    end
    ctx:table { traced = info, title = "Top processes by syscalls",
                columns = { "pid", "process", "calls", "per second", "errors", "time in syscalls (s)" }, rows = rows }

    -- time in syscalls includes blocking (a read waiting for data): who waits in the kernel
    local by_time = {}
    for _, p in ipairs(procs) do by_time[#by_time + 1] = p end
    table.sort(by_time, function(a, b) return (a.total_us or 0) > (b.total_us or 0) end)
    rows = {}
    for i, p in ipairs(by_time) do
      if i > args.top then break end
      rows[#rows + 1] = { p.pid, p.comm, secs(p.total_us), fmt.num(p.count),
                          string.format("%.2f", p.total_us / math.max(p.count, 1)) }
    end
    ctx:table { traced = info, title = "Top processes by time in syscalls (blocking included)",
                columns = { "pid", "process", "time in syscalls (s)", "calls", "mean (us)" }, rows = rows }

    local calls_of = {}
    for _, e in ipairs(d.by_syscall or {}) do calls_of[e.id] = e.count end
    rows = {}
    for i, e in ipairs(d.errors_by_syscall or {}) do
      if i > args.top then break end
      rows[#rows + 1] = { sc_name(e), errno_label(e), fmt.num(e.count),
                          fmt.pct(100 * e.count / math.max(calls_of[e.id] or e.count, 1)) }
    end
    if #rows > 0 then
      ctx:table { traced = info, title = "Failed syscalls by errno", columns = { "syscall", "error", "failures", "of its calls" }, rows = rows }
    end

    local top = procs[1]
    if top then
      if high then
        ctx:culprit { pid = top.pid, comm = top.comm, share = top.count / total }
        ctx:next("strace -c -p " .. tostring(top.pid) .. " (briefly: it slows the process) or a CPU profile of it, to see why it makes so many syscalls; batch them (bigger buffers, readv/writev, io_uring)")
      end
      local first = (d.by_syscall or {})[1]
      ctx:summary(string.format("%s syscalls/s (%s per CPU, %d CPUs), %s failed; most: %s (%s of calls); busiest process: %s (pid %d) with %s of them%s",
        fmt.num(math.floor(rate + 0.5)), fmt.num(math.floor(rate / ncpu + 0.5)), ncpu,
        fmt.pct(100 * (d.errors or 0) / total),
        first and sc_name(first) or "?", first and fmt.pct(100 * first.count / total) or "?",
        top.comm, top.pid, fmt.pct(100 * top.count / total),
        high and ": a high syscall rate for this many CPUs" or ""))
    end
  end,
}
