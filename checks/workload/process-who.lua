--- Who: the processes behind the load, by CPU, disk I/O and context switches.
local fmt = require("fmt")
local tasks = require("tasks")

local function table_of(ctx, title, top, unit_col, value_fmt)
  local rows = {}
  for _, e in ipairs(top) do
    rows[#rows + 1] = { e.task.pid, e.task.comm, value_fmt(e.value), e.task.uid or "?", e.task.cmdline }
  end
  ctx:table { title = title, columns = { "pid", "process", unit_col, "uid", "command" }, rows = rows }
end

return {
  id = "workload.process-who",
  title = "Who: top processes",
  methodology = "workload", resource = "process", metric = "who",
  tags = { "default", "proc" },
  collect = { "proc.pids" },
  args = { top = { type = "number", default = 8, help = "rows per table" } },

  run = function(ctx, args)
    local list, why = ctx.proc.tasks()
    if not list then
      ctx:unknown("top_processes", why)
      return
    end
    local hide = ctx.host.proc_hidepid
    if hide and hide ~= "0" and hide ~= "off" and ctx.host.euid ~= 0 then
      ctx:unknown("other_users_processes", string.format(
        "/proc is mounted with hidepid=%s and sonde ran as uid %s: other users' processes are hidden from it (run it as root)",
        hide, tostring(ctx.host.euid)))
    end
    local hz, secs = ctx.host.clk_tck, math.max(ctx.window.seconds, 1e-9)
    local by_cpu = tasks.top(list, function(t) return tasks.cpu_seconds(t, hz) end, args.top)
    table_of(ctx, "By CPU (share of one CPU over the window)", by_cpu, "CPU",
      function(v) return fmt.pct(100 * v / secs) end)
    local by_io = tasks.top(list, function(t) return (t.read_bytes or 0) + (t.write_bytes or 0) end, args.top)
    table_of(ctx, "By disk I/O (bytes read + written)", by_io, "I/O", fmt.bytes)
    local by_cs = tasks.top(list, function(t) return t.switches end, args.top)
    table_of(ctx, "By context switches (main thread, times scheduled in)", by_cs, "switches", fmt.num)

    local started, exited, kthreads, no_io = 0, 0, 0, 0
    for _, t in ipairs(list) do
      if t.read_bytes == nil and not t.exited and not t.started then no_io = no_io + 1 end
      if t.started then started = started + 1 end
      if t.exited then exited = exited + 1 end
      if t.kernel_thread then kthreads = kthreads + 1 end
    end
    if no_io > 0 then
      ctx:unknown("io_bytes", string.format("/proc/PID/io was unreadable for %d of %d processes "
        .. "(permission denied: another user's process when not root, or a non-dumpable one): the I/O ranking covers the others only", no_io, #list))
    end
    ctx:metric("processes", #list, { })
    ctx:metric("started_in_window", started, { })
    ctx:metric("exited_in_window", exited, { })
    if by_cpu[1] then
      ctx:summary(string.format("%d processes (%d kernel threads); top CPU: %s at %s of a CPU; %d started and %d exited during the window",
        #list, kthreads, fmt.task(by_cpu[1].task), fmt.pct(100 * by_cpu[1].value / secs), started, exited))
    else
      ctx:summary(string.format("%d processes, none used measurable CPU", #list))
    end
  end,
}
