--- Network controller saturation: packets its interfaces dropped or overran (rx/tx drop and
-- fifo in /proc/net/dev: ring buffers full, the backlog full, the NIC's FIFO overrun), summed
-- per controller.
local controllers = require("controllers")

local FIELDS = { "rx_drop", "tx_drop", "rx_fifo", "tx_fifo" }

return {
  id = "use.network-controller-saturation",
  title = "Network controller saturation",
  methodology = "use", resource = "network-controller", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.netdev" },
  args = {
    warn_drops_per_s = { type = "number", default = 10, help = "dropped or overrun packets per second over the controller's interfaces" },
    crit_drops_per_s = { type = "number", default = 1000, help = "critical drops per second" },
  },

  run = function(ctx, args)
    local list, without = controllers.network(ctx)
    if not list then
      ctx:unknown("drops_per_s", without)
      return
    end
    controllers.note_without(ctx, without, "interfaces")
    if #list == 0 then
      ctx:unknown("drops_per_s", "no interface has a controller: every interface is virtual")
      return
    end
    local rows, worst, worst_n = {}, nil, -1
    for _, c in ipairs(list) do
      local sum, top, top_n = 0, nil, -1
      for _, i in ipairs(c.ifaces) do
        local n = 0
        for _, f in ipairs(FIELDS) do n = n + (i.series:rate(f) or 0) end
        sum = sum + n
        if n > top_n then top, top_n = i.name, n end
      end
      ctx:metric("drops_per_s", sum, { unit = "packets/s", instance = c.id, warn = args.warn_drops_per_s, crit = args.crit_drops_per_s, agg = "mean", node_exporter = "node_network_receive_drop_total" })
      if sum > worst_n then worst, worst_n = { c = c, top = top }, sum end
      rows[#rows + 1] = { c.id, table.concat(c.info.devices, ", "), string.format("%.1f", sum) }
    end
    ctx:table { title = "Drops and overruns per network controller (/proc/net/dev drop + fifo)",
                columns = { "controller", "interfaces", "packets/s" }, rows = rows }
    ctx:summary(string.format("%.1f packets/s dropped or overrun on %s%s", worst_n, worst.c.id,
      worst_n > 0 and worst.top and (", most on " .. worst.top) or ""))
  end,
}
