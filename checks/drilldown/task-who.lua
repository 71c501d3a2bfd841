--- Task capacity short, deeper: the processes with the most threads against threads-max and pid_max, and who failed to fork.
local fmt = require("fmt")
local sc = require("syscount")
local tasks = require("tasks")

local FORKS = { fork = true, vfork = true, clone = true, clone3 = true }

return {
  id = "drilldown.task-who",
  title = "Drill-down: which processes hold the most threads, and who failed to fork",
  methodology = "drilldown", resource = "task", metric = "who",
  tags = { "drilldown", "proc", "tracing" },
  collect = { "proc.pids", "proc.loadavg", "bpf.syscount" },
  args = {
    top = { type = "number", default = 10, help = "rows per table" },
  },

  run = function(ctx, args)
    local tmax, pmax = ctx.host.threads_max, ctx.host.pid_max
    local la = ctx.proc.loadavg()
    local threads = la and la:max("threads")
    if threads then ctx:metric("threads", threads, { agg = "peak" }) end

    local most
    local list, twhy = ctx.proc.tasks()
    if list then
      local ranked = {}
      for _, t in ipairs(list) do
        if not t.self and not t.exited and not t.kernel_thread and (t.threads or 0) > 0 then ranked[#ranked + 1] = t end
      end
      ranked = tasks.best(ranked, math.max(args.top, 1),
        function(a, b) return a.threads > b.threads or (a.threads == b.threads and a.pid < b.pid) end)
      local rows = {}
      for i, t in ipairs(ranked) do
        if i > args.top then break end
        rows[#rows + 1] = { t.pid, t.comm, t.threads,
                            threads and threads > 0 and fmt.pct(100 * t.threads / threads) or "?",
                            (tmax and tmax > 0) and fmt.pct(100 * t.threads / tmax) or "?",
                            (pmax and pmax > 0) and fmt.pct(100 * t.threads / pmax) or "?" }
      end
      ctx:table { title = "Processes with the most threads (end of the drill-down window)",
                  columns = { "pid", "process", "threads", "of all threads", "of threads-max", "of pid_max" }, rows = rows }
      most = ranked[1]
      if most then
        ctx:metric("most_threads", most.threads, { instance = fmt.task(most), agg = "last" })
        ctx:culprit { pid = most.pid, comm = most.comm, cmdline = most.cmdline,
                      share = threads and threads > 0 and math.min(most.threads / threads, 1) or nil }
      end
    else
      ctx:unknown("most_threads", twhy)
    end

    local failed = 0
    local d, info = ctx.bpf.syscount()
    if d then
      local order, rows = sc.by_process(d, function(e)
        return e.name and FORKS[e.name] and (e.errno_name == "EAGAIN" or e.errno_name == "ENOMEM")
      end, args.top)
      for _, o in ipairs(order) do failed = failed + o.count end
      ctx:metric("fork_failures", failed, { unit = "failures", agg = "total" })
      if #rows > 0 then
        ctx:table { traced = info, title = "Failed fork/clone calls by process (syscount, drill-down window)",
                    columns = sc.columns, rows = rows }
      end
      sc.drops_note(ctx, info)
    else
      ctx:unknown("fork_failures", info)
    end

    local lim = string.format("threads-max %s, pid_max %s", fmt.num(tmax), fmt.num(pmax))
    if most then
      ctx:summary(string.format("%s threads (%s); most: %s with %d%s", threads and fmt.num(threads) or "?", lim,
        fmt.task(most), most.threads, d and string.format("; %d fork/clone failures in the drill-down window", failed) or ""))
      ctx:next(string.format("its threads: ls /proc/%d/task | wc -l over time (a thread leak grows); limits: ulimit -u, pids.max of its cgroup", most.pid))
    else
      ctx:summary(string.format("%s threads (%s); no process's thread count was readable", threads and fmt.num(threads) or "?", lim))
    end
  end,
}
