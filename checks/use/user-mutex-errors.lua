--- User mutex errors: futex waits the kernel failed (BPF futexctn): EDEADLK
-- from a PI lock its caller already owns, EINVAL or EFAULT from a corrupted or
-- unmapped lock word, ESRCH/EOWNERDEAD states of PI and robust mutexes. The
-- normal outcomes (EAGAIN: the lock word changed, ETIMEDOUT, EINTR) are not
-- errors. Errors a library returns without a syscall (an error-checking
-- mutex's EDEADLK, EBUSY of trylock) are not visible.
return {
  id = "use.user-mutex-errors",
  title = "User lock errors (failed futex waits)",
  methodology = "use", resource = "user-mutex", metric = "errors",
  tags = { "default", "tracing" },
  collect = { "bpf.futexctn" },
  args = {
    warn_errors = { type = "number", default = 1, help = "failed futex waits in the window that warn" },
  },

  run = function(ctx, args)
    local f, why = ctx.bpf.futexctn()
    if not f then
      ctx:unknown("futex_wait_errors", why)
      return
    end
    local n = f.errors or 0
    ctx:metric("futex_wait_errors", n, { unit = "count", warn = args.warn_errors })
    local rows = {}
    for _, p in ipairs(f.processes or {}) do
      if (p.errors or 0) > 0 then rows[#rows + 1] = { p.pid, p.comm, p.errors, p.count } end
    end
    if #rows > 0 then
      ctx:table { title = "Processes with failed futex waits (futexctn)", columns = { "pid", "process", "failed waits", "waits" }, rows = rows }
      ctx:culprit { pid = rows[1][1], comm = rows[1][2], share = n > 0 and rows[1][3] / n or 0 }
    end
    ctx:summary(string.format("%d futex waits failed with an error (EAGAIN, ETIMEDOUT and EINTR are not errors) out of %d", n, f.count or 0))
  end,
}
