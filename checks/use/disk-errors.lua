--- Disk errors: device error counters where the driver keeps one, and I/O errors in the kernel log.
local disks = require("disks")

return {
  id = "use.disk-errors",
  title = "Disk errors",
  methodology = "use", resource = "disk", metric = "errors",
  tags = { "default", "proc" },
  collect = { "proc.diskstats", "kernel.log" },

  run = function(ctx, args)
    local info = ctx.proc.disks()
    local measured = false
    if info then
      local names = {}
      for name in pairs(info) do names[#names + 1] = name end
      table.sort(names)
      local reasons = {}
      for _, name in ipairs(names) do
        local d = info[name]
        if d.ioerr_first and d.ioerr_last then
          ctx:metric("device_errors", d.ioerr_last - d.ioerr_first, { instance = name, warn = 1, crit = 10 })
          measured = true
        elseif d.ioerr_reason and not name:match("^loop") and not name:match("^ram") and not name:match("^zram") then
          reasons[#reasons + 1] = name
        end
      end
      if #reasons > 0 then
        ctx:unknown("device_errors", "no per-device error counter (device/ioerr_cnt) for " .. table.concat(reasons, ", ")
          .. ": only SCSI-class drivers keep one; the kernel log below is the fallback")
      end
    end
    local log, why = ctx.proc.kernel_log()
    if not log then
      ctx:unknown("kernel_io_errors", why)
      return
    end
    local boot0 = ctx.window.kernel_clock_start or 0
    local n, rows = 0, {}
    for _, line in ipairs(log) do
      local usec, text = line:match("^%d+,%d+,(%d+),[^;]*;(.*)$")
      text = text or line
      local lower = text:lower()
      if lower:find("i/o error", 1, true) or lower:find("blk_update_request", 1, true) or lower:find("medium error", 1, true) then
        local t = usec and tonumber(usec) / 1e6
        if t and t >= boot0 then
          n = n + 1
          if #rows < 20 then rows[#rows + 1] = { string.format("%.1f", t), text } end
        end
      end
    end
    ctx:metric("kernel_io_errors", n, { warn = 1, crit = 10 })
    if #rows > 0 then
      ctx:table { title = "I/O errors in the kernel log during the window", columns = { "s after boot", "message" }, rows = rows }
    end
    ctx:summary(string.format("%d I/O error messages in the kernel log during the window", n))
  end,
}
