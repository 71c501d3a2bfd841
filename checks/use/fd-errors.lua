--- File descriptor errors: EMFILE/ENFILE failures, per process (BPF syscount). /proc keeps no count of them.
local sc = require("syscount")

return {
  id = "use.fd-errors",
  title = "File descriptor errors",
  methodology = "use", resource = "fd", metric = "errors",
  tags = { "default", "proc", "tracing" },
  collect = { "bpf.syscount" },
  args = {
    -- A failure to get a descriptor is a failed request (an accept dropped, a file
    -- not written): in the USE method any error is worth a look.
    warn_failures = { type = "number", default = 1, help = "EMFILE/ENFILE failures in the window that warn" },
    top = { type = "number", default = 10, help = "rows per table" },
  },

  run = function(ctx, args)
    local d, info = ctx.bpf.syscount()
    if not d then
      -- the kernel counts them nowhere else
      ctx:unknown("emfile_enfile_errors", info)
      return
    end
    local function is_fd_error(e)
      if e.errno_name then return e.errno_name == "EMFILE" or e.errno_name == "ENFILE" end
      return e.errno == 24 or e.errno == 23 -- errno-base values, the same on every architecture
    end
    local total, emfile, enfile = 0, 0, 0
    for _, e in ipairs(d.errors_by_syscall or {}) do
      if is_fd_error(e) then
        total = total + e.count
        if e.errno == 24 then emfile = emfile + e.count else enfile = enfile + e.count end
      end
    end
    ctx:metric("emfile_enfile_errors", total, { unit = "failures", warn = args.warn_failures })
    ctx:metric("emfile_errors", emfile, { unit = "failures" })
    ctx:metric("enfile_errors", enfile, { unit = "failures" })
    sc.drops_note(ctx, info)
    if total == 0 then
      ctx:summary("no syscall failed with EMFILE or ENFILE in the window")
      return
    end

    -- per process and syscall; summed per process for the culprits
    local order, rows = sc.by_process(d, is_fd_error, args.top)
    ctx:table { title = "EMFILE/ENFILE failures by process and syscall (syscount)",
                columns = sc.columns, rows = rows }
    for i = 1, math.min(3, #order) do
      ctx:culprit { pid = order[i].pid, comm = order[i].comm, share = order[i].count / total }
    end
    local top = order[1]
    ctx:summary(string.format("%d syscalls failed for want of a file descriptor (%d EMFILE: the process's limit, %d ENFILE: the system's)%s",
      total, emfile, enfile, top and string.format("; most: %s (pid %d), %d", top.comm, top.pid, top.count) or ""))
    if emfile > 0 then
      ctx:next("compare the process's open fds with its limit (ls /proc/PID/fd | wc -l; grep 'open files' /proc/PID/limits): a leak, or a limit too low (ulimit -n, LimitNOFILE=)")
    end
    if enfile > 0 then
      ctx:next("the system file table is full: cat /proc/sys/fs/file-nr against fs.file-max")
    end
  end,
}
