--- What the system calls are: the read and write syscalls every process made,
-- from the counters the kernel keeps anyway (/proc/PID/io syscr and syscw).
-- Tracing every syscall (syscount) costs each one of them on a busy host: it
-- runs in the drill-down window, filtered in the kernel to the processes named
-- here (drilldown.syscall-who).
local fmt = require("fmt")
local sc = require("syscount")
local tasks = require("tasks")

return {
  id = "workload.syscall-what",
  title = "What: system calls",
  methodology = "workload", resource = "syscall", metric = "what",
  tags = { "default", "proc" },
  collect = { "proc.pids" },
  args = {
    -- Crossing into the kernel and back costs roughly 0.1-0.5 us per syscall
    -- (more with Spectre/Meltdown mitigations and in VMs) before any work is
    -- done: at 100k syscalls/s per CPU that is 1-5% of every CPU spent on the
    -- crossing alone, and batching (larger buffers, readv/writev, io_uring,
    -- sendmmsg) usually wins back most of it. Busy servers rarely go past it.
    -- Only reads and writes are counted here: a lower bound of all syscalls.
    warn_per_cpu = { type = "number", default = 100000, help = "read and write syscalls per second per CPU that warns" },
    top = { type = "number", default = 10, help = "rows per table" },
    -- the processes named as culprits (and traced by the drill-down): those with
    -- at least this share of the syscalls, the first always
    culprit_share = { type = "number", default = 0.2, help = "share of the syscalls that names a process a culprit" },
    -- /proc/PID/io also holds the counts of the children a process reaped (their
    -- whole lives): a shell whose dd exits jumps by millions with no CPU of its
    -- own. No syscall takes less than ~50 ns of CPU (a VM's take 200-500), so a
    -- process is credited with at most its CPU time / min_syscall_ns; its CPU is
    -- in whole ticks, rounded down, which the floor's margin covers but for a
    -- quarter tick of slack.
    min_syscall_ns = { type = "number", default = 50, help = "CPU a syscall takes at the least (ns), bounding what a process could have made" },
  },

  run = function(ctx, args)
    local list, why = ctx.proc.tasks()
    if not list then
      ctx:unknown("syscalls_per_s", why)
      return
    end
    local secs = math.max(ctx.window.seconds or 0, 1e-9)
    local ncpu = math.max(ctx.host.cpus or 1, 1)
    local tick_ns = 1e9 / math.max(ctx.host.clk_tck or 100, 1)
    local total, seen, reaped = 0, 0, {}
    -- a process's own syscalls: its counters' increase, at most what its CPU time allows
    local function own(t)
      if not t.syscr then return nil end
      local n = t.syscr + t.syscw
      local bound = ((t.utime or 0) + (t.stime or 0) + 0.25) * tick_ns / args.min_syscall_ns
      if n > bound then
        reaped[#reaped + 1] = { task = t, extra = n - bound }
        return math.floor(bound)
      end
      return n
    end
    local counted = {}
    for _, t in ipairs(list) do
      if not t.self and t.syscr then
        local n = own(t)
        counted[t] = n
        total = total + n
        seen = seen + 1
      end
    end
    if seen == 0 then
      ctx:unknown("syscalls_per_s", "no process's /proc/PID/io was readable at both ends of the window (it needs root or the same user)")
      return
    end
    local rate = total / secs
    local high = sc.rate(ctx, rate, ncpu, args.warn_per_cpu)
    if total == 0 then
      ctx:summary("no read or write syscall in the window (sonde's own are not counted)")
      return
    end
    local top = tasks.top(list, function(t) return counted[t] end, args.top)
    local rows = {}
    for _, e in ipairs(top) do
      local t = e.task
      rows[#rows + 1] = { t.pid, t.comm, fmt.num(t.syscr), fmt.num(t.syscw), fmt.num(e.value / secs),
                          fmt.pct(100 * e.value / total), fmt.pct(100 * t.cpu_share), t.cmdline }
    end
    ctx:table { title = "Top processes by read and write syscalls (/proc/PID/io)",
                columns = { "pid", "process", "reads", "writes", "per second", "share", "CPU (of one)", "command" }, rows = rows }
    ctx:note("the kernel counts read and write syscalls per process (syscr, syscw), not the others: "
      .. "a lower bound; the drill-down traces every syscall of the processes named here")
    table.sort(reaped, function(a, b) return a.extra > b.extra end)
    for i, r in ipairs(reaped) do
      if i > 3 then break end
      ctx:note(string.format("%s (pid %d): %s read and write syscalls more than its CPU time allows, those of the "
        .. "children it reaped in the window (their whole lives): not counted", r.task.comm, r.task.pid, fmt.num(r.extra)))
    end

    local first = top[1]
    if high and first then
      for i, e in ipairs(top) do
        if i > 3 or (i > 1 and e.value / total < args.culprit_share) then break end
        ctx:culprit { pid = e.task.pid, comm = e.task.comm, cmdline = e.task.cmdline, share = e.value / total }
      end
      ctx:next("strace -c -p " .. tostring(first.task.pid) .. " (briefly: it slows the process) or a CPU profile of it, to see why it makes so many syscalls; batch them (bigger buffers, readv/writev, io_uring)")
    end
    if first then
      ctx:summary(string.format("%s read and write syscalls/s (%s per CPU, %d CPUs); busiest process: %s (pid %d) with %s of them%s",
        fmt.num(math.floor(rate + 0.5)), fmt.num(math.floor(rate / ncpu + 0.5)), ncpu,
        first.task.comm, first.task.pid, fmt.pct(100 * first.value / total),
        high and ": a high syscall rate for this many CPUs" or ""))
    end
  end,
}
