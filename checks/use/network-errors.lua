--- Network errors: interface errors (rx/tx, frame, carrier) and protocol receive errors.
local net = require("net")

return {
  id = "use.network-errors",
  title = "Network errors",
  methodology = "use", resource = "network", metric = "errors",
  tags = { "default", "proc" },
  collect = { "proc.netdev", "proc.snmp" },

  run = function(ctx, args)
    local total = 0
    local list, why = net.interfaces(ctx)
    if list then
      for _, i in ipairs(list) do
        local e = 0
        for _, f in ipairs({ "rx_errs", "tx_errs", "rx_frame", "tx_carrier", "tx_colls" }) do
          e = e + (i.series:delta(f) or 0)
        end
        total = total + e
        ctx:metric("interface_errors", e, { instance = i.name, warn = 1, crit = 100 })
      end
    else
      ctx:unknown("interface_errors", why)
    end
    local snmp, swhy = ctx.proc.snmp()
    if snmp then
      ctx:metric("tcp_in_errors", snmp:delta("Tcp.InErrs") or 0, { warn = 1 })
      ctx:metric("udp_in_errors", snmp:delta("Udp.InErrors") or 0, { warn = 1 })
      ctx:metric("udp_rcvbuf_errors", snmp:delta("Udp.RcvbufErrors") or 0, { warn = 1 })
      ctx:metric("ip_in_discards", snmp:delta("Ip.InDiscards") or 0, { warn = 10 })
    else
      ctx:unknown("tcp_in_errors", swhy)
    end
    ctx:summary(string.format("%d interface errors during the window", total))
  end,
}
