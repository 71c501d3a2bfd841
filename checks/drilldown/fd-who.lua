--- File descriptors short, deeper: the processes nearest their open-file limit, and who failed with EMFILE/ENFILE.
local fmt = require("fmt")
local sc = require("syscount")
local tasks = require("tasks")

local function is_fd_error(e)
  if e.errno_name then return e.errno_name == "EMFILE" or e.errno_name == "ENFILE" end
  return e.errno == 24 or e.errno == 23
end

return {
  id = "drilldown.fd-who",
  title = "Drill-down: which processes are nearest their open-file limit, and who failed for want of a descriptor",
  methodology = "drilldown", resource = "fd", metric = "who",
  tags = { "drilldown", "proc", "tracing" },
  collect = { "proc.pids", "proc.filenr", "bpf.syscount" },
  args = {
    top = { type = "number", default = 10, help = "rows per table" },
  },

  run = function(ctx, args)
    local near
    local list, twhy = ctx.proc.tasks()
    if list then
      local ranked = {}
      for _, t in ipairs(list) do
        if not t.self and t.fds and t.nofile_soft and t.nofile_soft > 0 and t.nofile_soft < math.huge then
          ranked[#ranked + 1] = { task = t, pct = 100 * t.fds / t.nofile_soft }
        end
      end
      ranked = tasks.best(ranked, math.max(args.top, 1),
        function(a, b) return a.pct > b.pct or (a.pct == b.pct and a.task.pid < b.task.pid) end)
      local rows = {}
      for i, r in ipairs(ranked) do
        if i > args.top then break end
        local t = r.task
        rows[#rows + 1] = { t.pid, t.comm, t.fds, fmt.num(t.nofile_soft),
                            (t.nofile_hard and t.nofile_hard < math.huge) and fmt.num(t.nofile_hard) or "unlimited",
                            fmt.pct(r.pct), fmt.num(t.nofile_soft - t.fds) }
      end
      if #rows > 0 then
        ctx:table { title = "Processes nearest their open-file limit (end of the drill-down window)",
                    columns = { "pid", "process", "open fds", "soft limit", "hard limit", "used", "left" }, rows = rows }
        near = ranked[1]
        ctx:metric("nearest_limit_pct", near.pct, { unit = "%", instance = fmt.task(near.task), agg = "last" })
        ctx:culprit { pid = near.task.pid, comm = near.task.comm, cmdline = near.task.cmdline, share = math.min(near.pct / 100, 1) }
      else
        ctx:unknown("nearest_limit_pct", "no process had both its fd table and its limits readable at the end of the window "
          .. "(limits are read for processes with 16 or more open fds; reading others' fd tables needs root)")
      end
    else
      ctx:unknown("nearest_limit_pct", twhy)
    end

    local fnr = ctx.proc.filenr()
    if fnr and fnr:last("max") and fnr:last("max") > 0 then
      ctx:metric("system_pct", 100 * fnr:max("allocated") / fnr:last("max"), { unit = "%", agg = "peak", node_exporter = "node_filefd_allocated" })
    end

    -- the failures: EMFILE (the process's limit) and ENFILE (the system's), per process and syscall
    local failed = 0
    local d, info = ctx.bpf.syscount()
    if d then
      local order, rows = sc.by_process(d, is_fd_error, args.top)
      for _, o in ipairs(order) do failed = failed + o.count end
      ctx:metric("emfile_enfile_errors", failed, { unit = "failures", agg = "total" })
      if #rows > 0 then
        ctx:table { traced = info, title = "EMFILE/ENFILE failures by process and syscall (syscount, drill-down window)",
                    columns = sc.columns, rows = rows }
      end
      sc.drops_note(ctx, info)
      -- without a process near its limit, the one that failed most is who to look at
      local most = tasks.best(order, 1, function(a, b) return a.count > b.count or (a.count == b.count and a.pid < b.pid) end)[1]
      if not near and most then
        ctx:culprit { pid = most.pid, comm = most.comm, share = most.count / failed }
      end
    else
      ctx:unknown("emfile_enfile_errors", info)
    end

    if near then
      ctx:summary(string.format("%s is nearest its open-file limit: %d of %s (%s)%s", fmt.task(near.task), near.task.fds,
        fmt.num(near.task.nofile_soft), fmt.pct(near.pct),
        d and string.format("; %d EMFILE/ENFILE failures in the drill-down window", failed) or ""))
      ctx:next("what it keeps open: ls -l /proc/" .. near.task.pid .. "/fd (a leak grows between runs); raise LimitNOFILE if legitimate")
    else
      ctx:summary(string.format("no process's fd table and limits were readable%s",
        d and string.format("; %d EMFILE/ENFILE failures in the drill-down window", failed) or ""))
    end
  end,
}
