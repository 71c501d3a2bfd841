--- CPU errors: machine check exceptions counted by the kernel.
return {
  id = "use.cpu-errors",
  title = "CPU errors (machine checks)",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default", "proc" },
  collect = { "proc.interrupts" },

  run = function(ctx, args)
    local irq, why = ctx.proc.interrupts()
    if not irq then
      ctx:unknown("machine_checks", why)
      return
    end
    local mce = irq["MCE"]
    if not mce then
      ctx:unknown("machine_checks", "/proc/interrupts has no MCE line: this architecture or kernel does not count machine checks there (rasdaemon/mcelog, or EDAC, would)")
      return
    end
    if not (mce.first and mce.last) then
      ctx:unknown("machine_checks", "the MCE line was readable at only one end of the window")
      if mce.first or mce.last then ctx:metric("machine_checks_since_boot", mce.last or mce.first, { agg = "last" }) end
      return
    end
    ctx:metric("machine_checks", mce.last - mce.first, { warn = 1, crit = 10, agg = "total" })
    ctx:metric("machine_checks_since_boot", mce.last, { agg = "last" })
    ctx:summary(string.format("%d machine check exceptions during the window, %d since boot",
      mce.last - mce.first, mce.last))
  end,
}
