--- Kernel mutex saturation, first window: the CPU time threads spend in the
-- slow paths of contended kernel locks (spinning on a spinlock, a mutex or
-- rw-semaphore owner), seen in the 49 Hz on-CPU profile sonde takes anyway.
-- The waits themselves (sleeping on a lock included) are traced by klockstat
-- on the lock:contention tracepoints, which fire on every contended
-- acquisition: that runs in the drill-down window, filtered in the kernel to
-- the processes named here (drilldown.kernel-mutex-who).
local locks = require("locks")

return {
  id = "use.kernel-mutex-saturation",
  title = "Kernel lock contention",
  methodology = "use", resource = "kernel-mutex", metric = "saturation",
  tags = { "default", "tracing" },
  collect = { "bpf.profile" },
  args = {
    -- A healthy host spends next to nothing spinning on kernel locks; 5% of
    -- every CPU spinning is capacity lost to one another, 20% a lock that
    -- serializes the host.
    warn_pct = { type = "number", default = 5, help = "% of the host's CPU time in lock slow paths that warns" },
    crit_pct = { type = "number", default = 20, help = "% of the host's CPU time in lock slow paths that is critical" },
    min_samples = { type = "number", default = 10, help = "profile samples in lock slow paths needed to warn" },
  },

  run = function(ctx, args)
    locks.check(ctx, args, {
      metric = "lock_spin_pct", words = locks.kernel_slow, what = "CPU time in kernel lock slow paths",
      verdict = "threads spin or queue for contended kernel locks",
      next = "the lock waits per lock and caller (klockstat, drill-down), or perf lock contention -ab",
    })
  end,
}
