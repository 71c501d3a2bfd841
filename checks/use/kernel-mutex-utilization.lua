--- Kernel mutex utilization: the time kernel locks are held. The contention
-- tracepoints fire only when a lock is contended, so they show waits, never
-- hold times; the kernel's lock statistics (CONFIG_LOCK_STAT, /proc/lock_stat)
-- do, at a cost that makes them a debug build option. A known unknown.
return {
  id = "use.kernel-mutex-utilization",
  title = "Kernel lock hold time",
  methodology = "use", resource = "kernel-mutex", metric = "utilization",
  tags = { "default" },
  collect = {},

  run = function(ctx, args)
    ctx:unknown("lock_held_pct", "kernel lock hold times need CONFIG_LOCK_STAT (/proc/lock_stat, a debug "
      .. "kernel option) or kprobes on the lock functions; the lock:contention tracepoints see waits only "
      .. "(see use.kernel-mutex-saturation)")
  end,
}
