--- Swap saturation: swapping activity, pages swapped in and out per second (vmstat pswpin,
-- pswpout). Swap-ins are the costly part: a task waits for each one.
return {
  id = "use.swap-saturation",
  title = "Swap saturation",
  methodology = "use", resource = "swap", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.vmstat", "proc.meminfo" },
  args = {
    warn_in_per_s = { type = "number", default = 100, help = "pages swapped in per second that warn" },
    crit_in_per_s = { type = "number", default = 2500, help = "critical swap-in rate (about 10 MiB/s of 4 KiB pages)" },
  },

  run = function(ctx, args)
    local vm, why = ctx.proc.vmstat()
    if not vm or not vm:delta("pswpin") then
      ctx:unknown("swapin_pages_per_s", why or "/proc/vmstat has no pswpin (kernel without CONFIG_SWAP)")
      return
    end
    local mem = ctx.proc.meminfo()
    local total = mem and mem:last("SwapTotal")
    local rin, rout = vm:rate("pswpin"), vm:rate("pswpout") or 0
    local st = ctx:metric("swapin_pages_per_s", rin, { unit = "pages/s", warn = args.warn_in_per_s, crit = args.crit_in_per_s,
                                            over = vm:rates("pswpin"), agg = "mean", node_exporter = "node_vmstat_pswpin" })
    ctx:metric("swapout_pages_per_s", rout, { unit = "pages/s", over = vm:rates("pswpout"), agg = "mean", node_exporter = "node_vmstat_pswpout" })
    ctx:series("Pages swapped in per second", vm:rates("pswpin"), { unit = "pages/s", step = ctx.window.interval })
    ctx:series("Pages swapped out per second", vm:rates("pswpout"), { unit = "pages/s", step = ctx.window.interval })
    if total == 0 then
      ctx:summary("no swap is configured: nothing can wait on swap")
      return
    end
    if st ~= "ok" then
      ctx:next("who is swapped out: grep VmSwap /proc/*/status | sort -k2 -n | tail; memory saturation (PSI memory) says who waits")
    end
    ctx:summary(string.format("swapping %.0f pages/s in, %.0f pages/s out", rin, rout))
  end,
}
