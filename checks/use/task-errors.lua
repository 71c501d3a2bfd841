--- Task errors: fork/clone failures (EAGAIN, ENOMEM), per process (BPF syscount). /proc keeps no count of them.
local sc = require("syscount")

local FORKS = { fork = true, vfork = true, clone = true, clone3 = true }

return {
  id = "use.task-errors",
  title = "Task creation errors",
  methodology = "use", resource = "task", metric = "errors",
  tags = { "default", "proc", "tracing" },
  collect = { "bpf.syscount" },
  args = {
    -- A failed fork is a request that was not served (a worker not started, a
    -- command not run): in the USE method any error is worth a look.
    warn_failures = { type = "number", default = 1, help = "fork/clone failures (EAGAIN, ENOMEM) in the window that warn" },
    top = { type = "number", default = 10, help = "rows per table" },
  },

  run = function(ctx, args)
    local d, info = ctx.bpf.syscount()
    if not d then
      -- the kernel counts them nowhere else
      ctx:unknown("fork_failures", info)
      return
    end
    local function is_fork_error(e)
      if not (e.name and FORKS[e.name]) then return false end
      return e.errno_name == "EAGAIN" or e.errno_name == "ENOMEM"
    end
    local total, eagain, enomem = 0, 0, 0
    for _, e in ipairs(d.errors_by_syscall or {}) do
      if is_fork_error(e) then
        total = total + e.count
        if e.errno_name == "EAGAIN" then eagain = eagain + e.count else enomem = enomem + e.count end
      end
    end
    ctx:metric("fork_failures", total, { unit = "failures", warn = args.warn_failures })
    ctx:metric("fork_eagain", eagain, { unit = "failures" })
    ctx:metric("fork_enomem", enomem, { unit = "failures" })
    sc.drops_note(ctx, info)
    if total == 0 then
      ctx:summary("no fork, vfork, clone or clone3 failed with EAGAIN or ENOMEM in the window")
      return
    end

    local order, rows = sc.by_process(d, is_fork_error, args.top)
    ctx:table { title = "Failed fork/clone calls by process (syscount)",
                columns = sc.columns, rows = rows }
    for i = 1, math.min(3, #order) do
      ctx:culprit { pid = order[i].pid, comm = order[i].comm, share = order[i].count / total }
    end
    local top = order[1]
    ctx:summary(string.format("%d fork/clone calls failed (%d EAGAIN: a process or thread limit, %d ENOMEM)%s",
      total, eagain, enomem, top and string.format("; most: %s (pid %d), %d", top.comm, top.pid, top.count) or ""))
    if eagain > 0 then
      ctx:next("EAGAIN: RLIMIT_NPROC of the user (ulimit -u), the pids cgroup's pids.max, kernel.threads-max or kernel.pid_max")
    end
  end,
}
