--- Which block devices to look at, and per-disk arithmetic over /proc/diskstats.
local disks = {}

--- Whole disks (from /sys/block) that did I/O in the window, sorted by name.
-- ram and zram devices without I/O and idle loop devices are left out.
function disks.active(ctx)
  local stats, why = ctx.proc.diskstats()
  if not stats then return nil, why end
  local info = ctx.proc.disks() or {}
  local out = {}
  for name, s in pairs(stats) do
    local whole = info[name] ~= nil or next(info) == nil
    local ios = (s:delta("rd_ios") or 0) + (s:delta("wr_ios") or 0)
    local busy = s:delta("io_ticks") or 0
    if whole and (ios > 0 or busy > 0) then
      out[#out + 1] = { name = name, series = s, info = info[name] or {} }
    end
  end
  table.sort(out, function(a, b) return a.name < b.name end)
  return out, stats, info
end

--- iostat -x style figures for one disk over the window.
function disks.iostat(s)
  local secs = s:seconds()
  if secs <= 0 then return nil end
  local r, w = s:delta("rd_ios") or 0, s:delta("wr_ios") or 0
  local rt, wt = s:delta("rd_ticks") or 0, s:delta("wr_ticks") or 0
  local x = {
    seconds = secs,
    r_s = r / secs, w_s = w / secs,
    rkb_s = (s:delta("rd_sectors") or 0) * 512 / 1024 / secs,
    wkb_s = (s:delta("wr_sectors") or 0) * 512 / 1024 / secs,
    util_pct = math.min(100, 100 * (s:delta("io_ticks") or 0) / 1000 / secs),
    aqu_sz = (s:delta("time_in_queue") or 0) / 1000 / secs,
    r_await = r > 0 and rt / r or 0,
    w_await = w > 0 and wt / w or 0,
    await = (r + w) > 0 and (rt + wt) / (r + w) or 0,
    ios = r + w,
  }
  x.rareq_kb = r > 0 and (s:delta("rd_sectors") or 0) * 512 / 1024 / r or 0
  x.wareq_kb = w > 0 and (s:delta("wr_sectors") or 0) * 512 / 1024 / w or 0
  return x
end

return disks
