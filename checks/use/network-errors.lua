--- Network errors: interface errors, protocol receive errors, TCP retransmits and
--- resets per connection (BPF tcpretrans), packets the kernel dropped by reason (BPF tcpdrop).
local net = require("net")
local bpf = require("bpf")

-- "10.0.0.2:5201", "[fe80::1]:22"
local function endpoint(family, addr, port)
  if family == "ipv6" then return string.format("[%s]:%d", addr, port) end
  return string.format("%s:%d", addr, port)
end

local function retransmits(ctx, args)
  local d, info = ctx.bpf.tcpretrans()
  if not d then
    ctx:unknown("tcp_retransmits_per_s", info)
    return nil
  end
  local secs = bpf.traced_s(ctx, info)
  local rate_st = ctx:metric("tcp_retransmits_per_s", d.retransmits / secs,
             { unit = "/s", warn = args.warn_retrans_per_s, crit = args.crit_retrans_per_s, agg = "mean", node_exporter = "node_netstat_Tcp_RetransSegs", help = "every network namespace (tcpretrans)" })
  ctx:metric("tcp_retransmits", d.retransmits, { unit = "segments", agg = "total", node_exporter = "node_netstat_Tcp_RetransSegs", help = "every network namespace (tcpretrans)" })
  ctx:metric("tcp_resets_sent", d.resets_sent, { unit = "resets", agg = "total", node_exporter = "node_netstat_Tcp_OutRsts", help = "every network namespace (tcpretrans)" })
  ctx:metric("tcp_resets_received", d.resets_received, { unit = "resets", agg = "total", help = "every network namespace (tcpretrans)" })
  local rows, peers, order = {}, {}, {}
  for _, f in ipairs(d.flows or {}) do
    if #rows < 15 then
      rows[#rows + 1] = { endpoint(f.family, f.laddr, f.lport), endpoint(f.family, f.raddr, f.rport),
                          f.state, f.retransmits, f.resets_sent, f.resets_received }
    end
    if f.retransmits > 0 then
      local p = peers[f.raddr]
      if not p then
        p = { addr = f.raddr, retransmits = 0, conns = 0, states = {} }
        peers[f.raddr] = p
        order[#order + 1] = p
      end
      p.retransmits = p.retransmits + f.retransmits
      p.conns = p.conns + 1
      p.states[f.state] = (p.states[f.state] or 0) + f.retransmits
    end
  end
  if #rows > 0 then
    ctx:table { traced = info, title = "TCP retransmits and resets by connection and state (tcpretrans)",
                columns = { "local", "remote", "state", "retransmits", "resets sent", "resets received" },
                rows = rows }
  end
  table.sort(order, function(a, b) return a.retransmits > b.retransmits end)
  local prows = {}
  for i, p in ipairs(order) do
    if i > 10 then break end
    local st = {}
    for s, n in pairs(p.states) do st[#st + 1] = string.format("%s %d", s, n) end
    table.sort(st)
    prows[#prows + 1] = { p.addr, p.retransmits, p.conns, table.concat(st, ", ") }
  end
  if #prows > 0 then
    ctx:table { traced = info, title = "TCP retransmits by remote host (tcpretrans)",
                columns = { "remote host", "retransmits", "connection states", "by state" }, rows = prows }
  end
  if d.flows_seen and d.flows and d.flows_seen > #d.flows then
    ctx:note(string.format("tcpretrans: %d connection states seen, the %d with most retransmits shown",
                           d.flows_seen, #d.flows))
  end
  local top = order[1]
  if top and rate_st ~= "ok" then
    -- Retransmits fire from the TCP timers (softirq), not in the sender's context: the
    -- connection, not a process, is what can be named.
    ctx:next(string.format("ss -ti dst %s: the owner, cwnd, rtt and retrans of the connections to the host retransmitting most", top.addr))
  end
  return d.retransmits / secs, top
end

local function drops(ctx, args)
  local d, info = ctx.bpf.tcpdrop()
  if not d then
    ctx:unknown("packet_drops_per_s", info)
    return nil
  end
  local secs = bpf.traced_s(ctx, info)
  ctx:metric("packet_drops_per_s", d.drops / secs,
             { unit = "/s", warn = args.warn_drops_per_s, crit = args.crit_drops_per_s, agg = "mean", help = "packets the kernel freed as dropped, any reason (tcpdrop)" })
  ctx:metric("packet_drops", d.drops, { unit = "packets", agg = "total", help = "packets the kernel freed as dropped, any reason (tcpdrop)" })
  local rows, top = {}, nil
  for _, r in ipairs(d.reasons or {}) do
    if r.drop then
      top = top or r
      if #rows < 15 then
        rows[#rows + 1] = { r.reason, r.count, string.format("%.1f", r.count / secs) }
      end
    end
  end
  if #rows > 0 then
    ctx:table { traced = info, title = "Packets dropped by the kernel, by reason (tcpdrop)",
                columns = { "reason", "packets", "per second" }, rows = rows }
  end
  local frows = {}
  for _, f in ipairs(d.flows or {}) do
    if #frows >= 15 then break end
    frows[#frows + 1] = { f.reason, f.proto, endpoint(f.family, f.saddr, f.sport),
                          endpoint(f.family, f.daddr, f.dport), f.count }
  end
  if #frows > 0 then
    ctx:table { traced = info, title = "Dropped TCP and UDP packets by flow (tcpdrop)",
                columns = { "reason", "protocol", "source", "destination", "packets" }, rows = frows }
  end
  if d.reason_source and not d.reason_source:match("^kernel BTF") then
    ctx:note("tcpdrop: reason names: " .. d.reason_source)
  end
  if d.not_drops and #d.not_drops > 0 and (d.freed_not_dropped or 0) > 0 then
    ctx:note(string.format("tcpdrop: %d packets freed after use (%s) are not counted as drops",
                           d.freed_not_dropped, table.concat(d.not_drops, ", ")))
  end
  return d.drops / secs, top
end

return {
  id = "use.network-errors",
  title = "Network errors",
  methodology = "use", resource = "network", metric = "errors",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.netdev", "proc.snmp", "bpf.tcpretrans", "bpf.tcpdrop" },
  args = {
    warn_retrans_per_s = { type = "number", default = 5, help = "TCP retransmits per second (all namespaces) that warn" },
    crit_retrans_per_s = { type = "number", default = 100, help = "critical TCP retransmits per second" },
    warn_drops_per_s = { type = "number", default = 20, help = "packets dropped by the kernel per second that warn" },
    crit_drops_per_s = { type = "number", default = 500, help = "critical packet drops per second" },
  },

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
        ctx:metric("interface_errors", e, { instance = i.name, warn = 1, crit = 100, agg = "total", node_exporter = "node_network_receive_errs_total" })
      end
    else
      ctx:unknown("interface_errors", why)
    end
    -- /proc/net/snmp is sonde's own network namespace; the BPF tools below see every one.
    local snmp, swhy = ctx.proc.snmp()
    if snmp then
      ctx:metric("tcp_in_errors", snmp:delta("Tcp.InErrs") or 0, { warn = 1, agg = "total", node_exporter = "node_netstat_Tcp_InErrs" })
      ctx:metric("udp_in_errors", snmp:delta("Udp.InErrors") or 0, { warn = 1, agg = "total", node_exporter = "node_netstat_Udp_InErrors" })
      ctx:metric("udp_rcvbuf_errors", snmp:delta("Udp.RcvbufErrors") or 0, { warn = 1, agg = "total", node_exporter = "node_netstat_Udp_RcvbufErrors" })
      ctx:metric("ip_in_discards", snmp:delta("Ip.InDiscards") or 0, { warn = 10, agg = "total" })
    else
      ctx:unknown("tcp_in_errors", swhy)
    end
    local rps, peer = retransmits(ctx, args)
    local dps, reason = drops(ctx, args)
    local parts = { string.format("%d interface errors", total) }
    if rps then
      parts[#parts + 1] = string.format("%.1f TCP retransmits/s%s", rps,
        peer and (", most to " .. peer.addr) or "")
    end
    if dps then
      parts[#parts + 1] = string.format("%.1f packets dropped/s%s", dps,
        reason and (", mostly " .. reason.reason) or "")
    end
    ctx:summary(table.concat(parts, "; ") .. " during the window")
  end,
}
