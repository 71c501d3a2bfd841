--- Network saturation: drops and overruns per interface, TCP retransmits, listen queue overflows.
local net = require("net")
local fmt = require("fmt")

return {
  id = "use.network-saturation",
  title = "Network saturation",
  methodology = "use", resource = "network", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.netdev", "proc.snmp" },
  args = {
    warn_drops_per_s = { type = "number", default = 10, help = "dropped or overrun packets per second (one interface)" },
    warn_retrans_pct = { type = "number", default = 2, help = "TCP segments retransmitted, % of segments sent" },
    crit_retrans_pct = { type = "number", default = 10, help = "critical retransmit %" },
  },

  run = function(ctx, args)
    local list, why = net.interfaces(ctx)
    if list then
      for _, i in ipairs(list) do
        local s = i.series
        local drops = 0
        for _, f in ipairs({ "rx_drop", "tx_drop", "rx_fifo", "tx_fifo" }) do drops = drops + (s:rate(f) or 0) end
        ctx:metric("drops_per_s", drops, { unit = "packets/s", instance = i.name, warn = args.warn_drops_per_s })
      end
    else
      ctx:unknown("drops_per_s", why)
    end
    local snmp, swhy = ctx.proc.snmp()
    if not snmp then
      ctx:unknown("tcp_retrans_pct", swhy)
      return
    end
    local out = snmp:delta("Tcp.OutSegs") or 0
    local retrans = snmp:delta("Tcp.RetransSegs") or 0
    if out >= 100 then
      ctx:metric("tcp_retrans_pct", 100 * retrans / out, { unit = "%", warn = args.warn_retrans_pct, crit = args.crit_retrans_pct })
    else
      ctx:metric("tcp_retrans_pct", out > 0 and 100 * retrans / out or 0, { unit = "%" })
      ctx:note(string.format("only %d TCP segments sent in the window: too few to judge retransmits", out))
    end
    ctx:metric("tcp_retransmits", retrans, { })
    ctx:metric("listen_overflows", (snmp:delta("TcpExt.ListenOverflows") or 0), { warn = 1 })
    ctx:metric("listen_drops", (snmp:delta("TcpExt.ListenDrops") or 0), { warn = 1 })
    ctx:metric("tcp_backlog_drops", (snmp:delta("TcpExt.TCPBacklogDrop") or 0), { warn = 10 })
    ctx:summary(string.format("%d TCP retransmits of %d segments sent (%s), %d listen overflows",
      retrans, out, fmt.pct(out > 0 and 100 * retrans / out or 0), snmp:delta("TcpExt.ListenOverflows") or 0))
  end,
}
