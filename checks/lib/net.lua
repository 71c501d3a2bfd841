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

--- Whether a link kind takes its capacity from the devices under it (bond, team, vlan, ...).
function net.stacked(kind)
  return stacked[kind] == true
end

local na_tail = "its saturation is its drops and queue backlog (use.network-saturation)"

-- The ports enslaved to the link of ifindex (a bond's or team's), "eth1 (1000 Mb/s), eth2 (speed unknown)".
local function ports(links, ifindex, interfaces)
  local out = {}
  for pname, l in pairs(links or {}) do
    if l.master == ifindex then
      local sp = interfaces and interfaces[pname] and interfaces[pname].speed_mbps
      out[#out + 1] = pname .. (sp and string.format(" (%d Mb/s)", sp) or " (speed unknown)")
    end
  end
  table.sort(out)
  return out
end

--- Why interface name's reported speed is not a capacity, or nil when it is one (or may be).
-- links: ctx.proc.links() (net.links) or nil; devices: ctx.proc.controllers("net").devices or nil;
-- info: ctx.proc.interfaces()[name] (its speed_mbps or speed_reason) or nil; interfaces: all of
-- ctx.proc.interfaces(), for a bond's or team's ports. A stacked link (bond, team, vlan, ...) has
-- the capacity of the devices under it: the speed its driver reports (a bond's is the sum of its
-- active ports', by its mode) when it reports one; without one, it is n/a. The ports' speeds are
-- not summed here: which of them carry traffic depends on the bonding mode (active-backup uses
-- one), which is not recorded.
function net.no_capacity(name, links, devices, info, interfaces)
  local l = links and links[name]
  if l and l.kind then
    if stacked[l.kind] then
      if not info or info.speed_mbps then return nil end
      local why = "a " .. l.kind .. " without a known speed: " .. (info.speed_reason or "none reported")
      if l.kind == "bond" or l.kind == "team" then
        local p = ports(links, l.ifindex, interfaces)
        why = why .. (#p > 0 and ("; its ports " .. table.concat(p, ", ") .. " are not summed: which of them "
          .. "carry traffic depends on its mode (active-backup uses one), not recorded")
          or "; it has no port")
      end
      return why .. "; so it has no utilization, " .. na_tail
    end
    return "virtual link (" .. l.kind .. "): it forwards in software, the speed it reports is not a line rate, "
      .. "so it has no utilization; " .. na_tail
  end
  if l then return nil end -- a physical device (no kind)
  local d = devices and devices[name]
  if d and d.kind == "none" and #(d.stacked_on or {}) == 0 then
    return "virtual link (no device behind it): it forwards in software, the speed it reports is not a line "
      .. "rate, so it has no utilization; " .. na_tail
  end
  return nil
end

return net
