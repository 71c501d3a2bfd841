--- Network utilization: throughput against the link speed, per interface and direction. Virtual
-- and loopback links (veth, bridge, tun, lo, a bond without a known speed) have no line rate: their
-- cell is n/a with the reason, and their saturation is in use.network-saturation.
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
    local rows, unknown_speed, worst, worst_name, physical, na = {}, {}, 0, nil, 0, nil
    for _, i in ipairs(list) do
      local rx, tx = i.series:rate("rx_bytes") or 0, i.series:rate("tx_bytes") or 0
      local speed = i.info.speed_mbps
      local pct = "?"
      local virtual = net.no_capacity(i.name, links, devices)
      if virtual then
        ctx:not_applicable("link_pct", virtual, { instance = i.name })
        pct, speed, na = "n/a (virtual)", nil, virtual
        rows[#rows + 1] = { i.name, fmt.bytes(rx) .. "/s", fmt.bytes(tx) .. "/s", "none (virtual)", pct, i.info.operstate or "?" }
      elseif speed then
        local u = 100 * math.max(rx, tx) * 8 / (speed * 1e6)
        ctx:metric("link_pct", u, { unit = "%", instance = i.name, warn = args.warn_pct, crit = args.crit_pct })
        pct = fmt.pct(u)
        if u >= worst then worst, worst_name = u, i.name end
      elseif rx + tx > 0 then
        unknown_speed[#unknown_speed + 1] = i.name .. " (" .. (i.info.speed_reason or "no speed") .. ")"
      end
      if not virtual then
        physical = physical + 1
        ctx:metric("rx_bytes_per_s", rx, { unit = "bytes/s", instance = i.name })
        ctx:metric("tx_bytes_per_s", tx, { unit = "bytes/s", instance = i.name })
        rows[#rows + 1] = { i.name, fmt.bytes(rx) .. "/s", fmt.bytes(tx) .. "/s", speed and (speed .. " Mb/s") or "unknown", pct, i.info.operstate or "?" }
      end
    end
    if physical == 0 then
      -- nothing here has a line rate: the whole cell does not apply
      ctx:not_applicable("link_pct", na or "no interface but loopback")
      ctx:table { title = "Interfaces", columns = { "interface", "rx", "tx", "link speed", "utilization", "state" }, rows = rows }
      ctx:summary("no interface with a line rate: " .. (na and "only virtual links" or "only loopback"))
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
