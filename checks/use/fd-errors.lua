--- File descriptor errors: EMFILE/ENFILE failures. The kernel counts none of
-- them: they are seen only by tracing every syscall (syscount), which the
-- first window does not do (it would cost every syscall of a busy host). The
-- drill-down counts them, per process, when descriptors near a limit
-- (use.fd-utilization) call for it (drilldown.fd-who). A known unknown here.
return {
  id = "use.fd-errors",
  title = "File descriptor errors",
  methodology = "use", resource = "fd", metric = "errors",
  tags = { "default" },
  collect = {},

  run = function(ctx, args)
    ctx:unknown("emfile_enfile_errors", "the kernel counts no EMFILE/ENFILE failures: they are traced (syscount, every "
      .. "syscall) in the drill-down window when descriptors near a limit (drilldown.fd-who)")
  end,
}
