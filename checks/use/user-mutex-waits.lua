--- User lock waits, from the thread states: the time a process's threads
-- spend blocked on user locks (a contended pthread mutex, a PI lock, a file
-- lock, a SysV semaphore, or a futex the process is serialised on: waiters
-- queued on one address, woken again and again, at most one thread on a
-- CPU), as a share of its busy thread time. Read from the task iterator's
-- pass of every thread each round and the sampler's faster look at the
-- busiest waiters: no per-event tracing in the first window
-- (checks/lib/waits.lua). Idle waits (a pool parked on its condition
-- variable) are never counted.
local waits = require("waits")

return {
  id = "use.user-mutex-waits",
  title = "User lock waits (thread states)",
  methodology = "use", resource = "user-mutex", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.pids", "proc.threads" },
  args = waits.args(),

  run = function(ctx, args)
    waits.assess(ctx, args, "user-lock", {
      metric = "lock_wait_threads", what = "user locks",
      next = "which lock and who holds it: the futex waits by address and their times (futexctn), "
        .. "and the code paths that wait (an off-CPU flame graph), in the drill-down",
    })
  end,
}
