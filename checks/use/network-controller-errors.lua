--- Network controller errors: the PCIe AER error counters of each NIC controller and its
-- interfaces' error counters (rx/tx errors, frame, carrier, collisions), summed.
local controllers = require("controllers")

local FIELDS = { "rx_errs", "tx_errs", "rx_frame", "tx_carrier", "tx_colls" }

return {
  id = "use.network-controller-errors",
  title = "Network controller errors",
  methodology = "use", resource = "network-controller", metric = "errors",
  tags = { "default", "proc" },
  collect = { "proc.netdev" },

  run = function(ctx, args)
    local list, without = controllers.network(ctx)
    if not list then
      ctx:unknown("interface_errors", without)
      ctx:unknown("aer_errors", without)
      return
    end
    controllers.note_without(ctx, without, "interfaces")
    if #list == 0 then
      ctx:unknown("interface_errors", "no interface has a controller: every interface is virtual")
      return
    end
    local rows, no_aer, total = {}, {}, 0
    for _, c in ipairs(list) do
      local e = 0
      for _, i in ipairs(c.ifaces) do
        for _, f in ipairs(FIELDS) do e = e + (i.series:delta(f) or 0) end
      end
      ctx:metric("interface_errors", e, { instance = c.id, warn = 1, crit = 100, agg = "total", node_exporter = "node_network_receive_errs_total" })
      total = total + e
      local aer, fatal = controllers.aer_errors(c.info) -- nil, reason without AER
      if aer then
        ctx:metric("aer_errors", aer, { instance = c.id, warn = 1, crit = 100, agg = "total" })
        ctx:metric("aer_fatal_errors", fatal, { instance = c.id, crit = 1, agg = "total" })
        total = total + aer
      else
        no_aer[#no_aer + 1] = fatal -- the reason
      end
      rows[#rows + 1] = { c.id, table.concat(c.info.devices, ", "), e, aer or "-" }
    end
    if #no_aer > 0 then ctx:unknown("aer_errors", table.concat(no_aer, "; ")) end
    ctx:table { title = "Network controller errors during the window",
                columns = { "controller", "interfaces", "interface errors", "PCIe AER" }, rows = rows }
    ctx:summary(string.format("%d errors on %d network controller%s during the window", total, #list,
      #list == 1 and "" or "s"))
  end,
}
