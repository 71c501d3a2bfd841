--- Disk errors: device error counters where the driver keeps one, requests completed with an
-- error (biolatency, block_rq_complete), and I/O errors in the kernel log.

local OPS = { "read", "write", "discard", "flush", "other" }

return {
  id = "use.disk-errors",
  title = "Disk errors",
  methodology = "use", resource = "disk", metric = "errors",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.diskstats", "kernel.log", "bpf.biolatency" },

  run = function(ctx, args)
    local info = ctx.proc.disks()
    if info then
      local names = {}
      for name in pairs(info) do names[#names + 1] = name end
      table.sort(names)
      local reasons = {}
      for _, name in ipairs(names) do
        local d = info[name]
        if d.ioerr_first and d.ioerr_last then
          ctx:metric("device_errors", d.ioerr_last - d.ioerr_first, { instance = name, warn = 1, crit = 10, agg = "total", help = "I/O errors the device counted (sysfs ioerr_cnt)" })
        elseif d.ioerr_reason and not name:match("^loop") and not name:match("^ram") and not name:match("^zram") then
          reasons[#reasons + 1] = name
        end
      end
      if #reasons > 0 then
        ctx:unknown("device_errors", "no per-device error counter (device/ioerr_cnt) for " .. table.concat(reasons, ", ")
          .. ": only SCSI-class drivers keep one; the kernel log below is the fallback")
      end
    end
    -- every request the block layer completed with an error status, seen by the tracepoint
    -- (also those the kernel does not log: REQ_QUIET, rate-limited messages)
    local bl, blwhy = ctx.bpf.biolatency()
    local bl_txt
    if bl then
      local erows, total, completed = {}, 0, 0
      for _, d in ipairs(bl.disks or {}) do
        local n, ops = 0, {}
        for _, op in ipairs(OPS) do
          local o = d.ops and d.ops[op]
          if o then
            completed = completed + (o.completed or 0)
            if (o.errors or 0) > 0 then
              n = n + o.errors
              ops[#ops + 1] = string.format("%s %d of %d", op, o.errors, o.completed or 0)
            end
          end
        end
        ctx:metric("io_errors", n, { instance = d.name, warn = 1, crit = 10, agg = "total", help = "block requests that completed with an error (biolatency)" })
        total = total + n
        if n > 0 then erows[#erows + 1] = { d.name, n, table.concat(ops, ", ") } end
      end
      if #(bl.disks or {}) == 0 then
        -- no request completed in the window: none failed (the tool ran and saw every completion)
        ctx:metric("io_errors", 0, { warn = 1, crit = 10, agg = "total", help = "block requests that completed with an error (biolatency)" })
      end
      if #erows > 0 then
        ctx:table { traced = blwhy, title = "Requests completed with an error (biolatency, block_rq_complete)", columns = { "disk", "errors", "by operation (errors of completed)" }, rows = erows }
      end
      bl_txt = string.format("%d of %d block requests completed with an error (tracepoint)", total, completed)
    else
      ctx:unknown("io_errors", blwhy)
    end

    local log, why = ctx.proc.kernel_log()
    if not log then
      ctx:unknown("kernel_io_errors", why)
      if bl_txt then ctx:summary(bl_txt) end
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
    ctx:metric("kernel_io_errors", n, { warn = 1, crit = 10, agg = "total", help = "I/O errors in the kernel log" })
    if #rows > 0 then
      ctx:table { title = "I/O errors in the kernel log during the window", columns = { "s after boot", "message" }, rows = rows }
    end
    ctx:summary(string.format("%d I/O error messages in the kernel log during the window%s", n,
      bl_txt and "; " .. bl_txt or ""))
  end,
}
