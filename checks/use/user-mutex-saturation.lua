--- User mutex saturation, first window: the CPU time threads spend in futex
-- code, where contended pthread mutexes, rwlocks and condition variables
-- hand off through the kernel, seen in the 49 Hz on-CPU profile sonde takes
-- anyway. The waits themselves need futexctn, which hooks every syscall: that
-- runs in the drill-down window, filtered in the kernel to the processes named
-- here (drilldown.user-mutex-who).
local locks = require("locks")

return {
  id = "use.user-mutex-saturation",
  title = "User lock contention (futex)",
  methodology = "use", resource = "user-mutex", metric = "saturation",
  tags = { "default", "tracing" },
  collect = { "bpf.profile" },
  args = {
    -- Uncontended user locks never enter the kernel. Threads that keep
    -- blocking and waking one another through futexes spend CPU there: 5% of
    -- the host's CPU is a lock handed off tens of thousands of times a second.
    warn_pct = { type = "number", default = 5, help = "% of the host's CPU time in futex code that warns" },
    crit_pct = { type = "number", default = 20, help = "% of the host's CPU time in futex code that is critical" },
    min_samples = { type = "number", default = 10, help = "profile samples in futex code needed to warn" },
  },

  run = function(ctx, args)
    locks.check(ctx, args, {
      metric = "futex_cpu_pct", words = locks.futex, what = "CPU time in futex code",
      verdict = "threads block on and wake one another through contended user locks",
      next = "the futex waits per process and lock address (futexctn, drill-down), or an off-CPU profile (workload.process-why)",
    })
  end,
}
