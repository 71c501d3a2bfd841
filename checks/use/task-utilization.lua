--- Task capacity: threads against kernel.threads-max, and against pid_max.
local fmt = require("fmt")
local tasks = require("tasks")

return {
  id = "use.task-utilization",
  title = "Task capacity utilization",
  methodology = "use", resource = "task", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.loadavg", "proc.pids" },
  args = {
    warn_pct = { type = "number", default = 80, help = "% of threads-max or pid_max that warns" },
    crit_pct = { type = "number", default = 95, help = "critical %" },
  },

  run = function(ctx, args)
    local la, why = ctx.proc.loadavg()
    if not la then
      ctx:unknown("threads_pct", why)
      return
    end
    local threads = la:max("threads")
    local limit = ctx.host.threads_max
    local pid_max = ctx.host.pid_max
    if limit and limit > 0 then
      ctx:metric("threads_pct", 100 * threads / limit, { unit = "%", warn = args.warn_pct, crit = args.crit_pct, agg = "peak" })
    else
      ctx:unknown("threads_pct", "kernel.threads-max was not readable")
    end
    if pid_max and pid_max > 0 then
      ctx:metric("pids_pct", 100 * threads / pid_max, { unit = "%", warn = args.warn_pct, crit = args.crit_pct, agg = "peak" })
    end
    ctx:metric("threads", threads, { agg = "peak" })
    local list = ctx.proc.tasks()
    if list then
      local top = tasks.top(list, function(t) return t.threads end, 5)
      local rows = {}
      for _, e in ipairs(top) do rows[#rows + 1] = { e.task.pid, e.task.comm, e.value } end
      ctx:table { title = "Processes with the most threads", columns = { "pid", "process", "threads" }, rows = rows }
      ctx:metric("processes", #list, { agg = "total", help = "processes seen in the window" })
    end
    ctx:summary(string.format("%d threads of %s allowed (threads-max), pid_max %s",
      threads, fmt.num(limit), fmt.num(pid_max)))
  end,
}
