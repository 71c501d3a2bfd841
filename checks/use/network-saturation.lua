--- Network saturation: drops and overruns per interface, its queueing discipline's drops, requeues
-- and standing backlog (the saturation of a virtual link, which has no line rate), TCP
-- retransmits. Full listen queues are use.network-listen's (it names the listener and its owner).
local net = require("net")
local fmt = require("fmt")

return {
  id = "use.network-saturation",
  title = "Network saturation",
  methodology = "use", resource = "network", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.netdev", "proc.snmp", "net.links" },
  args = {
    warn_drops_per_s = { type = "number", default = 10, help = "dropped or overrun packets per second (one interface)" },
    warn_retrans_pct = { type = "number", default = 2, help = "TCP segments retransmitted, % of segments sent" },
    warn_backlog_pct = { type = "number", default = 50, help = "% of the samples with packets queued in an interface's qdisc" },
    warn_requeues_per_s = { type = "number", default = 10, help = "qdisc requeues per second (the driver refused packets: its ring is full)" },
    crit_retrans_pct = { type = "number", default = 10, help = "critical retransmit %" },
  },

  run = function(ctx, args)
    local list, why = net.interfaces(ctx)
    if list then
      for _, i in ipairs(list) do
        local s = i.series
        local drops = 0
        for _, f in ipairs({ "rx_drop", "tx_drop", "rx_fifo", "tx_fifo" }) do drops = drops + (s:rate(f) or 0) end
        ctx:metric("drops_per_s", drops, { unit = "packets/s", instance = i.name, warn = args.warn_drops_per_s, agg = "mean", node_exporter = "node_network_receive_drop_total" })
      end
      local links, lwhy = ctx.proc.links()
      local queued = {}
      for _, i in ipairs(list) do
        local q = links and links[i.name] and links[i.name].qdisc
        if q and #q >= 2 then
          local busy = 0
          for _, x in ipairs(q) do if (x.backlog or 0) > 0 or (x.qlen or 0) > 0 then busy = busy + 1 end end
          local pct = 100 * busy / #q
          ctx:metric("qdisc_drops_per_s", q:rate("drops") or 0, { unit = "packets/s", instance = i.name,
                                                                 warn = args.warn_drops_per_s, agg = "mean" })
          ctx:metric("qdisc_requeues_per_s", q:rate("requeues") or 0, { unit = "/s", instance = i.name,
                                                                       warn = args.warn_requeues_per_s, agg = "mean" })
          ctx:metric("qdisc_backlog_pct", pct, { unit = "%", instance = i.name, warn = args.warn_backlog_pct, agg = "mean", help = "share of the samples with packets queued" })
          if busy > 0 then
            queued[#queued + 1] = { i.name, q[#q].kind, fmt.bytes(q:max("backlog") or 0), string.format("%.0f%%", pct),
              fmt.num(q:delta("drops") or 0), fmt.num(q:delta("requeues") or 0) }
          end
        end
      end
      if not links then ctx:note("queueing disciplines not read: " .. tostring(lwhy)) end
      if #queued > 0 then
        ctx:table { title = "Interfaces with packets queued (root qdisc)",
                    columns = { "interface", "qdisc", "backlog (max)", "samples queued", "drops", "requeues" }, rows = queued }
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
      ctx:metric("tcp_retrans_pct", 100 * retrans / out, { unit = "%", warn = args.warn_retrans_pct, crit = args.crit_retrans_pct, agg = "mean", node_exporter = "node_netstat_Tcp_RetransSegs" })
    else
      ctx:metric("tcp_retrans_pct", out > 0 and 100 * retrans / out or 0, { unit = "%", agg = "mean", node_exporter = "node_netstat_Tcp_RetransSegs" })
      ctx:note(string.format("only %d TCP segments sent in the window: too few to judge retransmits", out))
    end
    ctx:metric("tcp_retransmits", retrans, { agg = "total", node_exporter = "node_netstat_Tcp_RetransSegs" })
    ctx:metric("listen_overflows", (snmp:delta("TcpExt.ListenOverflows") or 0), { agg = "total", node_exporter = "node_netstat_TcpExt_ListenOverflows" })
    ctx:metric("listen_drops", (snmp:delta("TcpExt.ListenDrops") or 0), { agg = "total", node_exporter = "node_netstat_TcpExt_ListenDrops" })
    ctx:metric("tcp_backlog_drops", (snmp:delta("TcpExt.TCPBacklogDrop") or 0), { warn = 10, agg = "total" })
    ctx:summary(string.format("%d TCP retransmits of %d segments sent (%s), %d listen overflows",
      retrans, out, fmt.pct(out > 0 and 100 * retrans / out or 0), snmp:delta("TcpExt.ListenOverflows") or 0))
  end,
}
