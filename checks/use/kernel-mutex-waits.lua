--- Kernel lock waits, from the thread states: the time a process's threads
-- sleep uninterruptibly on kernel locks (mutexes, rwsems: an inode's lock
-- many writers share, mmap_lock), read from the kernel stack of each thread
-- in D, as a share of its busy thread time (checks/lib/waits.lua).
local waits = require("waits")

return {
  id = "use.kernel-mutex-waits",
  title = "Kernel lock waits (thread states)",
  methodology = "use", resource = "kernel-mutex", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.pids", "proc.threads" },
  args = waits.args(),

  run = function(ctx, args)
    waits.assess(ctx, args, "kernel-lock", {
      metric = "kernel_lock_wait_threads", what = "kernel locks", d_state = true,
      next = "which kernel locks, taken where (klockstat), and the stacks that wait (an off-CPU flame graph), in the drill-down",
    })
  end,
}
