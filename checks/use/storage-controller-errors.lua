--- Storage controller errors: the PCIe AER error counters of each controller (its own link
-- errors), the device error counters of its disks (ioerr_cnt, SCSI-class only) and the block
-- requests its disks completed with an error (biolatency).
local controllers = require("controllers")

local OPS = { "read", "write", "discard", "flush", "other" }

return {
  id = "use.storage-controller-errors",
  title = "Storage controller errors",
  methodology = "use", resource = "storage-controller", metric = "errors",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.diskstats", "bpf.biolatency" },

  run = function(ctx, args)
    local list, without = controllers.storage(ctx)
    if not list then
      ctx:unknown("aer_errors", without)
      ctx:unknown("disk_errors", without)
      return
    end
    controllers.note_without(ctx, without, "disks")
    if #list == 0 then
      ctx:unknown("aer_errors", "no disk has a controller: every block device is virtual")
      return
    end
    local info = ctx.proc.disks() or {}
    local bl, blwhy = ctx.bpf.biolatency()
    local bl_err = {}
    for _, d in ipairs(bl and bl.disks or {}) do
      local n = 0
      for _, op in ipairs(OPS) do n = n + ((d.ops and d.ops[op] and d.ops[op].errors) or 0) end
      bl_err[d.name] = n
    end
    local no_aer, no_ioerr, rows, total = {}, {}, {}, 0
    for _, c in ipairs(list) do
      local aer, fatal = controllers.aer_errors(c.info) -- nil, reason without AER
      if aer then
        ctx:metric("aer_errors", aer, { instance = c.id, warn = 1, crit = 100, agg = "total" })
        ctx:metric("aer_fatal_errors", fatal, { instance = c.id, crit = 1, agg = "total" })
        total = total + aer
      else
        no_aer[#no_aer + 1] = fatal -- the reason
      end
      local ioerr, have_ioerr = 0, false
      for _, name in ipairs(c.info.devices) do
        local d = info[name] or {}
        if d.ioerr_first and d.ioerr_last then
          ioerr, have_ioerr = ioerr + (d.ioerr_last - d.ioerr_first), true
        elseif d.ioerr_reason then
          no_ioerr[#no_ioerr + 1] = name
        end
      end
      if have_ioerr then
        ctx:metric("device_errors", ioerr, { instance = c.id, warn = 1, crit = 10, agg = "total" })
        total = total + ioerr
      end
      local failed = 0
      if bl then
        for _, name in ipairs(c.info.devices) do failed = failed + (bl_err[name] or 0) end
        ctx:metric("io_errors", failed, { instance = c.id, warn = 1, crit = 10, agg = "total" })
        total = total + failed
      end
      rows[#rows + 1] = { c.id, table.concat(c.info.devices, ", "), aer or "-",
                          have_ioerr and ioerr or "-", bl and failed or "-" }
    end
    if #no_aer > 0 then ctx:unknown("aer_errors", table.concat(no_aer, "; ")) end
    if #no_ioerr > 0 then
      ctx:unknown("device_errors", "no per-device error counter (device/ioerr_cnt) for " .. table.concat(no_ioerr, ", ")
        .. ": only SCSI-class drivers keep one")
    end
    if not bl then ctx:unknown("io_errors", blwhy) end
    ctx:table { title = "Storage controller errors during the window",
                columns = { "controller", "disks", "PCIe AER", "device errors (ioerr_cnt)", "failed requests (biolatency)" }, rows = rows }
    ctx:summary(string.format("%d errors on %d storage controller%s during the window", total, #list,
      #list == 1 and "" or "s"))
  end,
}
