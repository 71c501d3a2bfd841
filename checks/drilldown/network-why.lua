--- Network errors, deeper: TCP retransmits by remote host and connection state, and the packets the kernel dropped by reason.
local fmt = require("fmt")
local bpf = require("bpf")
local tasks = require("tasks")

return {
  id = "drilldown.network-why",
  title = "Drill-down: where TCP retransmits, and why the kernel drops packets",
  methodology = "drilldown", resource = "network", metric = "why",
  tags = { "drilldown", "tracing" },
  collect = { "bpf.tcpretrans", "bpf.tcpdrop" },
  args = {
    top = { type = "number", default = 10, help = "rows per table" },
  },

  run = function(ctx, args)
    local parts = {}

    -- retransmits by (remote host, state): a peer that does not answer retransmits in
    -- SYN_SENT, a lossy path in ESTABLISHED
    local d, info = ctx.bpf.tcpretrans()
    if d then
      local secs = bpf.traced_s(ctx, info)
      ctx:metric("tcp_retransmits", d.retransmits, { unit = "segments", agg = "total", node_exporter = "node_netstat_Tcp_RetransSegs", help = "every network namespace (tcpretrans)" })
      ctx:metric("tcp_resets_sent", d.resets_sent, { unit = "resets", agg = "total", node_exporter = "node_netstat_Tcp_OutRsts", help = "every network namespace (tcpretrans)" })
      local by, order = {}, {}
      for _, f in ipairs(d.flows or {}) do
        if f.retransmits > 0 or f.resets_sent > 0 or f.resets_received > 0 then
          local k = f.raddr .. "\0" .. f.state
          local e = by[k]
          if not e then
            e = { addr = f.raddr, state = f.state, retransmits = 0, conns = 0, rst_out = 0, rst_in = 0, ports = {} }
            by[k] = e
            order[#order + 1] = e
          end
          e.retransmits = e.retransmits + f.retransmits
          e.rst_out, e.rst_in = e.rst_out + f.resets_sent, e.rst_in + f.resets_received
          e.conns = e.conns + 1
          e.ports[f.rport] = true
        end
      end
      order = tasks.best(order, math.max(args.top, 1), function(a, b)
        if a.retransmits ~= b.retransmits then return a.retransmits > b.retransmits end
        if a.rst_out + a.rst_in ~= b.rst_out + b.rst_in then return a.rst_out + a.rst_in > b.rst_out + b.rst_in end
        return a.addr < b.addr or (a.addr == b.addr and a.state < b.state)
      end)
      local rows = {}
      for i, e in ipairs(order) do
        if i > args.top then break end
        local ports = {}
        for p in pairs(e.ports) do ports[#ports + 1] = p end
        table.sort(ports)
        local pl = {}
        for j = 1, math.min(5, #ports) do pl[j] = tostring(ports[j]) end
        rows[#rows + 1] = { e.addr, e.state, e.retransmits, string.format("%.1f", e.retransmits / secs), e.conns,
                            table.concat(pl, ",") .. (#ports > 5 and ",..." or ""), e.rst_out, e.rst_in }
      end
      if #rows > 0 then
        ctx:table { traced = info, title = "TCP retransmits and resets by remote host and state (tcpretrans, drill-down window)",
                    columns = { "remote host", "state", "retransmits", "per second", "connections", "remote ports", "resets sent", "resets received" },
                    rows = rows }
        local e = order[1]
        parts[#parts + 1] = string.format("%d retransmits, most to %s in %s (%d)", d.retransmits, e.addr, e.state, e.retransmits)
      else
        parts[#parts + 1] = string.format("%d retransmits", d.retransmits)
      end
      if d.flows_seen and d.flows and d.flows_seen > #d.flows then
        ctx:note(string.format("tcpretrans: %d connection states seen, the %d with most retransmits counted here", d.flows_seen, #d.flows))
      end
    else
      ctx:unknown("tcp_retransmits", info)
    end

    -- drops by reason, with the protocol and the flows behind the top reasons
    local dr, dinfo = ctx.bpf.tcpdrop()
    if dr then
      local secs = bpf.traced_s(ctx, dinfo)
      ctx:metric("packet_drops", dr.drops, { unit = "packets", agg = "total", help = "packets the kernel freed as dropped, any reason (tcpdrop)" })
      local protos = {}
      for _, b in ipairs(dr.by_protocol or {}) do
        protos[b.reason] = protos[b.reason] or {}
        local l = protos[b.reason]
        if #l < 3 then l[#l + 1] = string.format("%s %d", b.protocol, b.count) end
      end
      local flows = {}
      for _, f in ipairs(dr.flows or {}) do
        flows[f.reason] = flows[f.reason] or {}
        local l = flows[f.reason]
        if #l < 2 then l[#l + 1] = string.format("%s %s:%d -> %s:%d (%d)", f.proto, f.saddr, f.sport, f.daddr, f.dport, f.count) end
      end
      local rows, top = {}, nil
      for _, r in ipairs(dr.reasons or {}) do
        if r.drop then
          top = top or r
          if #rows < args.top then
            rows[#rows + 1] = { r.reason, r.count, string.format("%.1f", r.count / secs),
                                fmt.pct(dr.drops > 0 and 100 * r.count / dr.drops or 0),
                                table.concat(protos[r.reason] or {}, ", "), table.concat(flows[r.reason] or {}, "; ") }
          end
        end
      end
      if #rows > 0 then
        ctx:table { traced = dinfo, title = "Packets dropped by the kernel, by reason (tcpdrop, drill-down window)",
                    columns = { "reason", "packets", "per second", "of the drops", "protocols", "top flows" }, rows = rows }
      end
      if top then
        parts[#parts + 1] = string.format("%d packets dropped, most for %s (%d)", dr.drops, top.reason, top.count)
      else
        parts[#parts + 1] = string.format("%d packets dropped", dr.drops)
      end
      if dr.reason_source and not dr.reason_source:match("^kernel BTF") then
        ctx:note("tcpdrop: reason names: " .. dr.reason_source)
      end
    else
      ctx:unknown("packet_drops", dinfo)
    end

    -- No culprit: retransmits fire from TCP timers and drops in softirq, in whatever
    -- task happened to run, and sonde does not capture which process owns a socket.
    ctx:note("no process is named: retransmits and drops happen in timer and softirq context, not in the owner's, "
      .. "and sonde does not record socket ownership; ss -tip dst HOST shows the process owning a connection")
    ctx:summary("Over the drill-down window: " .. (#parts > 0 and table.concat(parts, "; ") or "neither retransmits nor drops could be traced"))
  end,
}
