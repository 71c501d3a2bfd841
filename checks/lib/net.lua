--- Network interfaces worth looking at (loopback left out), and whether a link's speed is a capacity.
local net = {}

function net.interfaces(ctx)
  local stats, why = ctx.proc.netdev()
  if not stats then return nil, why end
  local info = ctx.proc.interfaces() or {}
  local out = {}
  for name, s in pairs(stats) do
    local i = info[name] or {}
    -- ARPHRD_LOOPBACK is 772
    if name ~= "lo" and i.type ~= 772 then
      out[#out + 1] = { name = name, series = s, info = i }
    end
  end
  table.sort(out, function(a, b) return a.name < b.name end)
  return out
end

-- Link kinds whose speed is their lower devices' (the line rate of real NICs under them).
local stacked = { bond = true, team = true, vlan = true, macvlan = true, macvtap = true, ipvlan = true }

--- Why interface name's reported speed is not a capacity, or nil when it is one (or may be).
-- links: ctx.proc.links() (net.links) or nil; devices: ctx.proc.controllers("net").devices or nil.
function net.no_capacity(name, links, devices)
  local l = links and links[name]
  if l and l.kind then
    if stacked[l.kind] then return nil end
    return "virtual link (" .. l.kind .. "): it forwards in software, the speed it reports is not a line rate, "
      .. "so it has no utilization; its saturation is its drops and queue backlog (use.network-saturation)"
  end
  if l then return nil end -- a physical device (no kind)
  local d = devices and devices[name]
  if d and d.kind == "none" and #(d.stacked_on or {}) == 0 then
    return "virtual link (no device behind it): it forwards in software, the speed it reports is not a line "
      .. "rate, so it has no utilization; its saturation is its drops and queue backlog (use.network-saturation)"
  end
  return nil
end

return net
