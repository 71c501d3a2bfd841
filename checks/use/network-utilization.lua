--- Network utilization: throughput against the link speed, per interface and direction. Virtual
-- and loopback links (veth, bridge, tun, lo) and stacked ones without a known speed (a bond, team
-- or vlan) have no line rate: their cell is n/a with the reason, and their saturation is in
-- use.network-saturation. A link of any kind whose speed is unknown shows n/a with the reason too.
local net = require("net")
local fmt = require("fmt")

return {
  id = "use.network-utilization",
  title = "Network utilization",
  methodology = "use", resource = "network", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.netdev", "net.links" },
  args = {
    warn_pct = { type = "number", default = 70, help = "% of the link speed (either direction)" },
    crit_pct = { type = "number", default = 90, help = "critical % of the link speed" },
  },

  run = function(ctx, args)
    local list, why = net.interfaces(ctx)
    if not list then
      ctx:unknown("link_pct", why)
      return
    end
    local links = ctx.proc.links()
    local ctrl = ctx.proc.controllers("net")
    local devices = ctrl and ctrl.devices
    local stats = ctx.proc.netdev() or {}
    if stats.lo then
      ctx:not_applicable("link_pct", "loopback: traffic never leaves the host, there is no line rate", { instance = "lo" })
    end
    local interfaces = ctx.proc.interfaces() or {}
    local rows, unknown_speed, worst, worst_name, physical, na, stacked_na = {}, {}, 0, nil, 0, nil, false
    for _, i in ipairs(list) do
      local rx, tx = i.series:rate("rx_bytes") or 0, i.series:rate("tx_bytes") or 0
      local speed = i.info.speed_mbps
      local l = links and links[i.name]
      local kind = l and l.kind
      local pct
      local why_na = net.no_capacity(i.name, links, devices, i.info, interfaces)
      if why_na and not speed and kind and net.stacked(kind) then
        -- a bond, team or vlan without a known speed: no capacity to measure against, so its cell
        -- is n/a (no throughput metric of its own would speak over it: it is in the table)
        ctx:not_applicable("link_pct", why_na, { instance = i.name })
        na, stacked_na = why_na, true
        rows[#rows + 1] = { i.name, fmt.bytes(rx) .. "/s", fmt.bytes(tx) .. "/s", "none known",
          "n/a: a " .. kind .. " without a known speed", i.info.operstate or "?" }
      elseif why_na then
        ctx:not_applicable("link_pct", why_na, { instance = i.name })
        na = why_na
        rows[#rows + 1] = { i.name, fmt.bytes(rx) .. "/s", fmt.bytes(tx) .. "/s", "none (virtual)",
          "n/a: virtual link" .. (kind and (" (" .. kind .. ")") or ""), i.info.operstate or "?" }
      else
        physical = physical + 1
        if speed then
          local u = 100 * math.max(rx, tx) * 8 / (speed * 1e6)
          ctx:metric("link_pct", u, { unit = "%", instance = i.name, warn = args.warn_pct, crit = args.crit_pct, agg = "mean", node_exporter = "node_network_speed_bytes" })
          pct = fmt.pct(u)
          if u >= worst then worst, worst_name = u, i.name end
        else
          pct = "n/a: no known speed (" .. (i.info.speed_reason or "none reported") .. ")"
          if rx + tx > 0 then
            unknown_speed[#unknown_speed + 1] = i.name .. " (" .. (i.info.speed_reason or "no speed") .. ")"
          end
        end
        ctx:metric("rx_bytes_per_s", rx, { unit = "bytes/s", instance = i.name, agg = "mean", node_exporter = "node_network_receive_bytes_total" })
        ctx:metric("tx_bytes_per_s", tx, { unit = "bytes/s", instance = i.name, agg = "mean", node_exporter = "node_network_transmit_bytes_total" })
        rows[#rows + 1] = { i.name, fmt.bytes(rx) .. "/s", fmt.bytes(tx) .. "/s", speed and (speed .. " Mb/s") or "none known", pct, i.info.operstate or "?" }
      end
    end
    if physical == 0 then
      -- nothing here has a line rate: the whole cell does not apply
      ctx:not_applicable("link_pct", na or "no interface but loopback")
      ctx:table { title = "Interfaces", columns = { "interface", "rx", "tx", "link speed", "utilization", "state" }, rows = rows }
      ctx:summary("no interface with a line rate: " .. (not na and "only loopback"
        or stacked_na and "only virtual links and links without a known speed" or "only virtual links"))
      return
    end
    ctx:table { title = "Interfaces", columns = { "interface", "rx", "tx", "link speed", "utilization", "state" }, rows = rows }
    if #unknown_speed > 0 then
      ctx:unknown("link_pct", "link speed unknown for " .. table.concat(unknown_speed, "; ")
        .. ": virtual and paravirtual NICs report none, so utilization cannot be computed (throughput is shown)")
    end
    if worst_name then
      ctx:summary(string.format("busiest link %s at %s of its speed", worst_name, fmt.pct(worst)))
    end
  end,
}
