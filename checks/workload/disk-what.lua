--- What: the disk workload (IOPS, throughput, I/O sizes, read/write mix).
local disks = require("disks")
local fmt = require("fmt")

return {
  id = "workload.disk-what",
  title = "What: disk I/O",
  methodology = "workload", resource = "disk", metric = "what",
  tags = { "default", "proc" },
  collect = { "proc.diskstats" },

  run = function(ctx, args)
    local list, why = disks.active(ctx)
    if not list then
      ctx:unknown("iops", why)
      return
    end
    local rows, total_iops = {}, 0
    for _, d in ipairs(list) do
      local x = disks.iostat(d.series)
      if x then
        total_iops = total_iops + x.r_s + x.w_s
        local mix = x.ios > 0 and fmt.pct(100 * x.r_s / (x.r_s + x.w_s)) or "-"
        rows[#rows + 1] = { d.name, string.format("%.1f", x.r_s + x.w_s), fmt.bytes(x.rkb_s * 1024) .. "/s",
          fmt.bytes(x.wkb_s * 1024) .. "/s", string.format("%.1f", x.rareq_kb), string.format("%.1f", x.wareq_kb), mix }
        local iops, r, w = {}, d.series:rates("rd_ios"), d.series:rates("wr_ios")
        for i = 1, #r do iops[i] = r[i] + (w[i] or 0) end
        ctx:series(d.name .. " IOPS", iops, { unit = "IO/s", step = ctx.window.interval })
      end
    end
    ctx:metric("iops", total_iops, { unit = "IO/s" }) -- per disk in the series evidence
    if #rows > 0 then
      ctx:table { title = "Disk workload", columns = { "disk", "IOPS", "read", "write", "avg read KB", "avg write KB", "reads" }, rows = rows }
    end
    ctx:summary(string.format("%.1f IOPS over %d active disks", total_iops, #list))
  end,
}
