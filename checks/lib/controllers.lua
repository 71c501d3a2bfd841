--- Storage and network controllers: which devices each one serves (ctx.proc.controllers),
-- their summed per-device figures, and the PCIe link as a capacity bound.
local disks = require("disks")

local controllers = {}

--- Bytes per second one direction of a PCIe link carries, after line encoding: 8b/10b up to
-- 5 GT/s (gen 1, 2), 128b/130b from 8 to 32 GT/s (gen 3 to 5), 242/256 FLIT mode from 64 GT/s
-- (gen 6). A bound: packet headers and flow control take a further 10-20%.
function controllers.pcie_bytes_per_s(link)
  local gts, width = link.speed_gts, link.width
  local enc = gts < 8 and 8 / 10 or (gts < 64 and 128 / 130 or 242 / 256)
  return gts * 1e9 * enc / 8 * width
end

local function link_text(c)
  if not c.link then return "unknown" end
  local t = string.format("%g GT/s x%d", c.link.speed_gts, c.link.width)
  if (c.link.max_speed_gts and c.link.max_speed_gts > c.link.speed_gts)
     or (c.link.max_width and c.link.max_width > c.link.width) then
    t = t .. string.format(" (can do %g GT/s x%d)", c.link.max_speed_gts or c.link.speed_gts,
                           c.link.max_width or c.link.width)
  end
  return t
end
controllers.link_text = link_text

--- Sum of correctable, non-fatal and fatal AER errors over the window, and the fatal ones;
-- nil, reason when the controller keeps no AER counters.
function controllers.aer_errors(c)
  if c.aer_reason then return nil, c.aer_reason end
  local total, fatal = 0, 0
  for k, v in pairs(c.aer or {}) do
    local d = math.max(0, v.last - v.first)
    total = total + d
    if k == "fatal" then fatal = d end
  end
  return total, fatal
end

-- The sorted ids of a controllers table.
local function sorted_ids(ctrls)
  local ids = {}
  for id in pairs(ctrls) do ids[#ids + 1] = id end
  table.sort(ids)
  return ids
end

-- "loop0, loop1 (virtual); dm-0 (stacked on vda)": the devices without a controller.
local function without(devices, skip)
  local names = {}
  for name, d in pairs(devices) do
    if not d.controller and not (skip and skip(name)) then
      names[#names + 1] = #d.stacked_on > 0
        and string.format("%s (stacked on %s, counted there)", name, table.concat(d.stacked_on, ", "))
        or name
    end
  end
  table.sort(names)
  return names
end

--- Storage controllers: a sorted list of { id, info, disks = { { name, x = iostat } },
-- rkb_s, wkb_s, bytes_s, aqu_sz, busy_max, busiest }, and the disks without a controller.
-- nil, reason when the captures hold no controller record or no disk statistics.
function controllers.storage(ctx)
  local rec, why = ctx.proc.controllers("disk")
  if not rec then return nil, why end
  local stats, swhy = ctx.proc.diskstats()
  if not stats then return nil, swhy end
  local out = {}
  for _, id in ipairs(sorted_ids(rec.controllers)) do
    local c = { id = id, info = rec.controllers[id], disks = {}, rkb_s = 0, wkb_s = 0,
                aqu_sz = 0, busy_max = 0 }
    for _, name in ipairs(c.info.devices) do
      local s = stats[name]
      local x = s and disks.iostat(s)
      if x then
        c.disks[#c.disks + 1] = { name = name, x = x, series = s }
        c.rkb_s = c.rkb_s + x.rkb_s
        c.wkb_s = c.wkb_s + x.wkb_s
        c.aqu_sz = c.aqu_sz + x.aqu_sz
        if not c.busiest or x.util_pct > c.busy_max then c.busy_max, c.busiest = x.util_pct, name end
      end
    end
    c.bytes_s = (c.rkb_s + c.wkb_s) * 1024
    out[#out + 1] = c
  end
  return out, without(rec.devices), rec
end

--- Network controllers: a sorted list of { id, info, ifaces = { { name, series } }, rx_s,
-- tx_s (bytes/s), busiest }, and the interfaces without a controller.
function controllers.network(ctx)
  local rec, why = ctx.proc.controllers("net")
  if not rec then return nil, why end
  local stats, swhy = ctx.proc.netdev()
  if not stats then return nil, swhy end
  local out = {}
  for _, id in ipairs(sorted_ids(rec.controllers)) do
    local c = { id = id, info = rec.controllers[id], ifaces = {}, rx_s = 0, tx_s = 0 }
    local best = -1
    for _, name in ipairs(c.info.devices) do
      local s = stats[name]
      if s then
        local rx, tx = s:rate("rx_bytes") or 0, s:rate("tx_bytes") or 0
        c.ifaces[#c.ifaces + 1] = { name = name, series = s, rx_s = rx, tx_s = tx }
        c.rx_s, c.tx_s = c.rx_s + rx, c.tx_s + tx
        if rx + tx > best then best, c.busiest = rx + tx, name end
      end
    end
    out[#out + 1] = c
  end
  return out, without(rec.devices), rec
end

--- The note every controller check adds about devices without one.
function controllers.note_without(ctx, names, what)
  if #names > 0 then
    ctx:note(string.format("%s without a controller (virtual, or stacked on other devices): %s",
                           what, table.concat(names, ", ")))
  end
end

return controllers
