--- User mutex utilization: the time user-space locks are held. A pthread mutex
-- taken without contention never enters the kernel, so no syscall or
-- tracepoint sees it; hold times need uprobes on the lock library's lock and
-- unlock (costly: every acquisition), which sonde does not attach. A known unknown.
return {
  id = "use.user-mutex-utilization",
  title = "User lock hold time",
  methodology = "use", resource = "user-mutex", metric = "utilization",
  tags = { "default" },
  collect = {},

  run = function(ctx, args)
    ctx:unknown("mutex_held_pct", "user lock hold times need uprobes on the lock library's lock and unlock "
      .. "(pthread_mutex_lock/unlock, every acquisition): an uncontended lock never enters the kernel; "
      .. "sonde measures the contended waits only (see use.user-mutex-saturation)")
  end,
}
