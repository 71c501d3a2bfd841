--- Kernel mutex errors: the kernel counts no lock errors. Deadlocks and lock
-- misuse are reported by lockdep (CONFIG_PROVE_LOCKING, a debug option) in the
-- kernel log, and hung waiters by the hung task detector; sonde's kernel log
-- capture keeps OOM, I/O, swap and file system records only. A known unknown.
return {
  id = "use.kernel-mutex-errors",
  title = "Kernel lock errors",
  methodology = "use", resource = "kernel-mutex", metric = "errors",
  tags = { "default" },
  collect = {},

  run = function(ctx, args)
    ctx:unknown("lock_errors", "the kernel counts no lock errors: deadlocks are reported only by lockdep "
      .. "(CONFIG_PROVE_LOCKING, a debug option) and hung waiters by the hung task detector, in the kernel "
      .. "log, whose records sonde does not keep")
  end,
}
