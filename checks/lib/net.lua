--- Network interfaces worth looking at: loopback is left out.
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

return net
