--- Swap errors: failed reads and writes of swap pages, from the kernel log ("Read-error on
-- swap-device", "Write-error on swap-device"): the kernel counts them nowhere else.
return {
  id = "use.swap-errors",
  title = "Swap errors",
  methodology = "use", resource = "swap", metric = "errors",
  tags = { "default", "proc" },
  collect = { "kernel.log", "proc.meminfo" },

  run = function(ctx, args)
    local mem = ctx.proc.meminfo()
    local log, why = ctx.proc.kernel_log()
    if not log then
      ctx:unknown("swap_io_errors", why)
      return
    end
    local boot0 = ctx.window.kernel_clock_start or 0
    local n, rows = 0, {}
    for _, line in ipairs(log) do
      local usec, text = line:match("^%d+,%d+,(%d+),[^;]*;(.*)$")
      text = text or line
      if text:lower():find("error on swap-device", 1, true) then
        local t = usec and tonumber(usec) / 1e6
        if t and t >= boot0 then
          n = n + 1
          if #rows < 20 then rows[#rows + 1] = { string.format("%.1f", t), text } end
        end
      end
    end
    ctx:metric("swap_io_errors", n, { warn = 1, crit = 10, agg = "total" })
    if #rows > 0 then
      ctx:table { title = "Swap I/O errors in the kernel log during the window", columns = { "s after boot", "message" }, rows = rows }
      ctx:next("the swap device's disk errors: use.disk-errors; a process that hit one got SIGBUS")
    end
    local none = mem and mem:last("SwapTotal") == 0
    ctx:summary(string.format("%d swap read or write errors in the kernel log during the window%s", n,
      none and " (no swap is configured)" or ""))
  end,
}
