--- Storage controller utilization: the throughput of each controller (the sum of its disks'
-- bytes/s) against its capacity. The capacity of an HBA, NVMe or virtio controller is not
-- published; for a PCI Express device the link (speed x width, per direction) bounds it.
local controllers = require("controllers")
local fmt = require("fmt")

return {
  id = "use.storage-controller-utilization",
  title = "Storage controller utilization",
  methodology = "use", resource = "storage-controller", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.diskstats" },
  args = {
    warn_pct = { type = "number", default = 70, help = "% of the PCIe link bandwidth (the busier direction)" },
    crit_pct = { type = "number", default = 90, help = "critical % of the PCIe link bandwidth" },
  },

  run = function(ctx, args)
    local list, without = controllers.storage(ctx)
    if not list then
      ctx:unknown("throughput_bytes_per_s", without)
      ctx:unknown("link_pct", without)
      return
    end
    controllers.note_without(ctx, without, "disks")
    if #list == 0 then
      ctx:unknown("link_pct", "no disk has a controller: every block device is virtual")
      ctx:summary("no storage controller: every block device is virtual")
      return
    end
    local rows, no_link, worst, worst_c = {}, {}, -1, nil
    for _, c in ipairs(list) do
      local rd, wr = c.rkb_s * 1024, c.wkb_s * 1024
      ctx:metric("throughput_bytes_per_s", rd + wr, { unit = "bytes/s", instance = c.id, agg = "mean", node_exporter = "node_disk_read_bytes_total" })
      local pct = "?"
      if c.info.link then
        -- reads travel device to host, writes host to device: each direction has the link's rate
        local u = 100 * math.max(rd, wr) / controllers.pcie_bytes_per_s(c.info.link)
        ctx:metric("link_pct", u, { unit = "%", instance = c.id, warn = args.warn_pct, crit = args.crit_pct, agg = "mean" })
        pct = fmt.pct(u)
      else
        no_link[#no_link + 1] = c.info.link_reason
      end
      if rd + wr > worst then worst, worst_c = rd + wr, c end
      local names = {}
      for _, d in ipairs(c.info.devices) do names[#names + 1] = d end
      rows[#rows + 1] = { c.id, c.info.driver or "?", table.concat(names, ", "), fmt.bytes(rd) .. "/s",
                          fmt.bytes(wr) .. "/s", controllers.link_text(c.info), pct }
    end
    ctx:table { title = "Storage controllers (throughput: the sum of their disks)",
                columns = { "controller", "driver", "disks", "read", "write", "PCIe link", "of link" }, rows = rows }
    if #no_link > 0 then
      ctx:unknown("link_pct", "controller capacity unknown: " .. table.concat(no_link, "; ")
        .. "; controllers publish no throughput limit, so only the throughput is shown")
    end
    -- Per-process I/O is known per process, not per controller: no process is named here.
    local busiest = worst_c.busiest
    ctx:summary(string.format("busiest storage controller %s moved %s/s%s", worst_c.id, fmt.bytes(worst),
      busiest and (", most on " .. busiest .. " (no process: per-process I/O is not known per controller; see use.disk-utilization)") or ""))
  end,
}
