--- What: the network workload (packets and bytes per interface, TCP connection rates).
local net = require("net")
local fmt = require("fmt")

return {
  id = "workload.network-what",
  title = "What: network traffic",
  methodology = "workload", resource = "network", metric = "what",
  tags = { "default", "proc" },
  collect = { "proc.netdev", "proc.snmp" },

  run = function(ctx, args)
    local list, why = net.interfaces(ctx)
    if not list then
      ctx:unknown("packets_per_s", why)
      return
    end
    local rows = {}
    for _, i in ipairs(list) do
      local s = i.series
      rows[#rows + 1] = { i.name, string.format("%.1f", s:rate("rx_packets") or 0), string.format("%.1f", s:rate("tx_packets") or 0),
        fmt.bytes(s:rate("rx_bytes") or 0) .. "/s", fmt.bytes(s:rate("tx_bytes") or 0) .. "/s" }
    end
    ctx:table { title = "Traffic per interface", columns = { "interface", "rx pkt/s", "tx pkt/s", "rx", "tx" }, rows = rows }
    local snmp = ctx.proc.snmp()
    if snmp then
      local active, passive = snmp:rate("Tcp.ActiveOpens") or 0, snmp:rate("Tcp.PassiveOpens") or 0
      ctx:metric("tcp_active_opens_per_s", active, { unit = "conn/s" })
      ctx:metric("tcp_passive_opens_per_s", passive, { unit = "conn/s" })
      ctx:metric("tcp_established", snmp:last("Tcp.CurrEstab") or 0, { })
      ctx:summary(string.format("%d interfaces; TCP: %.1f outgoing and %.1f incoming connections/s, %d established",
        #list, active, passive, snmp:last("Tcp.CurrEstab") or 0))
    end
  end,
}
