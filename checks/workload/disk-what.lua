--- What: the disk workload (IOPS, throughput, I/O sizes, read/write mix), and with biolatency
-- each operation's request count, size and latency per disk.
local disks = require("disks")
local fmt = require("fmt")
local hist = require("hist")

local OPS = { "read", "write", "discard", "flush", "other" }

-- Per disk and operation from biolatency: a table, and the p99 request latency of each disk.
local function by_op(ctx)
  local bl, why = ctx.bpf.biolatency()
  if not bl then
    ctx:unknown("io_p99_ms", why)
    return
  end
  local rows, any = {}, false
  for _, d in ipairs(bl.disks or {}) do
    local all = {}
    for _, op in ipairs(OPS) do
      local o = d.ops and d.ops[op]
      if o and (o.completed or 0) > 0 then
        for i, c in ipairs(o.total or {}) do all[i] = (all[i] or 0) + c end
        local n = hist.count(o.total)
        rows[#rows + 1] = { d.name, op, o.completed, fmt.bytes(o.bytes or 0),
          string.format("%.1f", (o.bytes or 0) / 1024 / o.completed),
          n > 0 and string.format("%.3f", o.total_us / n / 1000) or "-",
          n > 0 and string.format("%.3f", hist.percentile(o.total, 50) / 1000) or "-",
          n > 0 and string.format("%.3f", hist.percentile(o.total, 99) / 1000) or "-" }
      end
    end
    for i = 1, #all do all[i] = all[i] or 0 end
    if hist.count(all) > 0 then
      any = true
      ctx:metric("io_p99_ms", hist.percentile(all, 99) / 1000, { unit = "ms", instance = d.name, agg = "p99" })
    end
  end
  if not any then
    ctx:unknown("io_p99_ms", "biolatency saw no block request both issued and completed in the window")
  end
  if #rows > 0 then
    ctx:table { traced = why, title = "Requests by operation (biolatency; latency from insert, or issue, to completion)",
      columns = { "disk", "op", "requests", "bytes", "avg KB", "avg ms", "p50 ms", "p99 ms" }, rows = rows }
  end
end

return {
  id = "workload.disk-what",
  title = "What: disk I/O",
  methodology = "workload", resource = "disk", metric = "what",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.diskstats", "bpf.biolatency" },

  run = function(ctx, args)
    by_op(ctx)
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
    ctx:metric("iops", total_iops, { unit = "IO/s", agg = "mean", node_exporter = "node_disk_reads_completed_total" }) -- per disk in the series evidence
    if #rows > 0 then
      ctx:table { title = "Disk workload", columns = { "disk", "IOPS", "read", "write", "avg read KB", "avg write KB", "reads" }, rows = rows }
    end
    ctx:summary(string.format("%.1f IOPS over %d active disks", total_iops, #list))
  end,
}
