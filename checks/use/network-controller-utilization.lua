--- Network controller utilization: the throughput of each NIC controller (the sum of its
-- interfaces' bytes/s, a multi-port card counts every port) against its PCIe link, the bound
-- a controller has beyond its ports' link speeds (those are the network rows).
local controllers = require("controllers")
local fmt = require("fmt")

return {
  id = "use.network-controller-utilization",
  title = "Network controller utilization",
  methodology = "use", resource = "network-controller", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.netdev" },
  args = {
    warn_pct = { type = "number", default = 70, help = "% of the PCIe link bandwidth (the busier direction)" },
    crit_pct = { type = "number", default = 90, help = "critical % of the PCIe link bandwidth" },
  },

  run = function(ctx, args)
    local list, without = controllers.network(ctx)
    if not list then
      ctx:unknown("throughput_bytes_per_s", without)
      ctx:unknown("link_pct", without)
      return
    end
    controllers.note_without(ctx, without, "interfaces")
    if #list == 0 then
      ctx:unknown("link_pct", "no interface has a controller: every interface is virtual")
      ctx:summary("no network controller: every interface is virtual")
      return
    end
    local rows, no_link, worst_c = {}, {}, nil
    for _, c in ipairs(list) do
      ctx:metric("throughput_bytes_per_s", c.rx_s + c.tx_s, { unit = "bytes/s", instance = c.id, agg = "mean", node_exporter = "node_network_receive_bytes_total" })
      local pct = "?"
      if c.info.link then
        -- received bytes travel device to host, sent bytes host to device
        local u = 100 * math.max(c.rx_s, c.tx_s) / controllers.pcie_bytes_per_s(c.info.link)
        ctx:metric("link_pct", u, { unit = "%", instance = c.id, warn = args.warn_pct, crit = args.crit_pct, agg = "mean" })
        pct = fmt.pct(u)
      else
        no_link[#no_link + 1] = c.info.link_reason
      end
      if not worst_c or c.rx_s + c.tx_s > worst_c.rx_s + worst_c.tx_s then worst_c = c end
      rows[#rows + 1] = { c.id, c.info.driver or "?", table.concat(c.info.devices, ", "), fmt.bytes(c.rx_s) .. "/s",
                          fmt.bytes(c.tx_s) .. "/s", controllers.link_text(c.info), pct }
    end
    ctx:table { title = "Network controllers (throughput: the sum of their interfaces)",
                columns = { "controller", "driver", "interfaces", "rx", "tx", "PCIe link", "of link" }, rows = rows }
    if #no_link > 0 then
      ctx:unknown("link_pct", "controller capacity unknown: " .. table.concat(no_link, "; ")
        .. "; controllers publish no throughput limit, so only the throughput is shown")
    end
    ctx:summary(string.format("busiest network controller %s moved %s/s%s", worst_c.id,
      fmt.bytes(worst_c.rx_s + worst_c.tx_s),
      worst_c.busiest and (", most on " .. worst_c.busiest .. " (no process: traffic is not known per process here)") or ""))
  end,
}
