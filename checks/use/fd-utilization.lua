--- File descriptors: the system file table and each process against its RLIMIT_NOFILE.
local fmt = require("fmt")
local tasks = require("tasks")

return {
  id = "use.fd-utilization",
  title = "File descriptor utilization",
  methodology = "use", resource = "fd", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.filenr", "proc.pids" },
  args = {
    warn_pct = { type = "number", default = 80, help = "% of a limit (system or per process) that warns" },
    crit_pct = { type = "number", default = 95, help = "critical %" },
  },

  run = function(ctx, args)
    local fnr, why = ctx.proc.filenr()
    if fnr and fnr:last("max") and fnr:last("max") > 0 then
      ctx:metric("system_pct", 100 * fnr:max("allocated") / fnr:last("max"), { unit = "%", warn = args.warn_pct, crit = args.crit_pct, agg = "peak", node_exporter = "node_filefd_allocated" })
      ctx:metric("system_allocated", fnr:max("allocated"), { agg = "peak", node_exporter = "node_filefd_allocated" })
    else
      ctx:unknown("system_pct", why or "file-nr reports no maximum")
    end
    local list, twhy = ctx.proc.tasks()
    if not list then
      ctx:unknown("process_pct", twhy)
      return
    end
    local ranked = tasks.rank(list, 5, function(t)
      local fds, soft = t.fds, t.nofile_soft
      if fds and soft and soft > 0 and soft < math.huge then return 100 * fds / soft end
    end)
    if #ranked == 0 then
      ctx:unknown("process_pct", "no process had both its fd table and its limits readable at the end of the window "
        .. "(limits are read for processes with 16 or more open fds; reading others' fd tables needs root)")
      return
    end
    local top = ranked[1]
    local st = ctx:metric("process_pct", top.value, { unit = "%", instance = fmt.task(top.task), warn = args.warn_pct, crit = args.crit_pct, agg = "last" })
    if st ~= "ok" then
      ctx:culprit { pid = top.task.pid, comm = top.task.comm, cmdline = top.task.cmdline, share = top.value / 100 }
      ctx:next("what the process keeps open: ls -l /proc/" .. top.task.pid .. "/fd; raise LimitNOFILE if legitimate")
    end
    local rows = {}
    for i = 1, math.min(5, #ranked) do
      local r = ranked[i]
      rows[i] = { r.task.pid, r.task.comm, r.task.fds, fmt.num(r.task.nofile_soft), fmt.pct(r.value) }
    end
    ctx:table { title = "Processes nearest their open-file limit", columns = { "pid", "process", "open fds", "soft limit", "used" }, rows = rows }
    ctx:summary(string.format("%s is nearest its open-file limit: %d of %s (%s)", fmt.task(top.task), top.task.fds,
      fmt.num(top.task.nofile_soft), fmt.pct(top.value)))
  end,
}
