--- User mutex errors: futex waits the kernel failed (EDEADLK from a PI lock its
-- caller already owns, EINVAL or EFAULT from a corrupted or unmapped lock
-- word, ESRCH/EOWNERDEAD of PI and robust mutexes). The kernel counts none of
-- them: they are seen only by tracing every futex call (futexctn), which hooks
-- every syscall of the host, so it runs in the drill-down window when user
-- lock contention is found (drilldown.user-mutex-who reports the failures).
-- A known unknown in the first window.
return {
  id = "use.user-mutex-errors",
  title = "User lock errors (failed futex waits)",
  methodology = "use", resource = "user-mutex", metric = "errors",
  tags = { "default" },
  collect = {},

  run = function(ctx, args)
    ctx:unknown("futex_wait_errors", "the kernel counts no failed futex waits: they are traced (futexctn, every syscall) "
      .. "in the drill-down window when user lock contention is found (drilldown.user-mutex-who)")
  end,
}
