--- Task errors: fork/clone failures (EAGAIN, ENOMEM). The kernel counts them
-- only for cgroups at their pids.max (use.cgroup-errors); the others are seen
-- only by tracing every syscall (syscount), which the first window does not do
-- (it would cost every syscall of a busy host). The drill-down counts them, per
-- process, when threads near threads-max or pid_max (use.task-utilization)
-- call for it (drilldown.task-who). A known unknown here.
return {
  id = "use.task-errors",
  title = "Task creation errors",
  methodology = "use", resource = "task", metric = "errors",
  tags = { "default" },
  collect = {},

  run = function(ctx, args)
    ctx:unknown("fork_failures", "the kernel counts fork failures only at a cgroup's pids.max (use.cgroup-errors); "
      .. "the others are traced (syscount, every syscall) in the drill-down window when threads near "
      .. "threads-max or pid_max (drilldown.task-who)")
  end,
}
