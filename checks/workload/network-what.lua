--- What: the network workload (packets and bytes per interface, TCP connection rates,
--- the connections retransmitting most: BPF tcpretrans).
local net = require("net")
local fmt = require("fmt")
local bpf = require("bpf")

return {
  id = "workload.network-what",
  title = "What: network traffic",
  methodology = "workload", resource = "network", metric = "what",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.netdev", "proc.snmp", "bpf.tcpretrans" },

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
    -- Which connections retransmit: every namespace (tcpretrans), not only sonde's.
    local rt, rwhy = ctx.bpf.tcpretrans()
    if rt then
      -- the seconds it traced: attached before the window, read after it
      local secs = bpf.traced_s(ctx, rwhy)
      ctx:metric("tcp_retransmits_per_s", rt.retransmits / secs, { unit = "/s", agg = "mean", node_exporter = "node_netstat_Tcp_RetransSegs", help = "every network namespace (tcpretrans)" })
      local rrows = {}
      for _, f in ipairs(rt.flows or {}) do
        if #rrows >= 10 or f.retransmits == 0 then break end
        local fam = f.family == "ipv6" and "[%s]:%d" or "%s:%d"
        rrows[#rrows + 1] = { string.format(fam, f.laddr, f.lport), string.format(fam, f.raddr, f.rport),
                              f.state, f.retransmits, string.format("%.1f", f.retransmits / secs) }
      end
      if #rrows > 0 then
        ctx:table { traced = rwhy, title = "Connections retransmitting most (tcpretrans)",
                    columns = { "local", "remote", "state", "retransmits", "per second" }, rows = rrows }
      end
    else
      ctx:unknown("tcp_retransmits_per_s", rwhy)
    end
    local snmp = ctx.proc.snmp()
    if snmp then
      local active, passive = snmp:rate("Tcp.ActiveOpens") or 0, snmp:rate("Tcp.PassiveOpens") or 0
      ctx:metric("tcp_active_opens_per_s", active, { unit = "conn/s", agg = "mean", node_exporter = "node_netstat_Tcp_ActiveOpens" })
      ctx:metric("tcp_passive_opens_per_s", passive, { unit = "conn/s", agg = "mean", node_exporter = "node_netstat_Tcp_PassiveOpens" })
      ctx:metric("tcp_established", snmp:last("Tcp.CurrEstab") or 0, { agg = "last", node_exporter = "node_netstat_Tcp_CurrEstab" })
      ctx:summary(string.format("%d interfaces; TCP: %.1f outgoing and %.1f incoming connections/s, %d established",
        #list, active, passive, snmp:last("Tcp.CurrEstab") or 0))
    end
  end,
}
