-- Cases for checks/lib/disks.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local disks = require("disks")

local is = tap.is

-- A /proc/diskstats series with the methods of ctx.proc.diskstats()'s: seconds() and delta(f)
-- between the first and the last sample.
local function series(secs, d)
  local s = {}
  function s.seconds(_) return secs end
  function s.delta(_, f) return d[f] end
  return s
end

-- 10 s of a disk: 1000 reads of 8 KiB in 2 s of read time, 500 writes in 4 s, busy 5 s
local x = disks.iostat(series(10, { rd_ios = 1000, wr_ios = 500, rd_ticks = 2000, wr_ticks = 4000,
  rd_sectors = 16000, wr_sectors = 4000, io_ticks = 5000, time_in_queue = 6000 }))
is(x.r_s, 100.0, "reads per second")
is(x.w_s, 50.0, "writes per second")
is(x.rkb_s, 800.0, "read KB/s")
is(x.util_pct, 50.0, "busy half the window")
is(x.aqu_sz, 0.6, "average queue size")
is(x.r_await, 2.0, "read await ms")
is(x.await, 4.0, "await over reads and writes")
is(x.rareq_kb, 8.0, "read request size")
is(x.ios, 1500, "ios")
local idle = disks.iostat(series(10, {}))
is(idle.await, 0, "no I/O: await 0, not NaN")
is(idle.util_pct, 0.0, "no I/O: 0% busy")
is(disks.iostat(series(0, {})), nil, "one sample: nil")
is(disks.iostat(series(1, { io_ticks = 2500 })).util_pct, 100, "busy capped at 100%")

-- active: whole disks with I/O in the window, by name
local stats = { sda = series(10, { rd_ios = 5 }), sda1 = series(10, { rd_ios = 5 }),
  ram0 = series(10, {}), vdb = series(10, { io_ticks = 3 }) }
local ctx = { proc = { diskstats = function() return stats end,
  disks = function() return { sda = { rotational = true }, ram0 = {}, vdb = {} } end } }
local list = disks.active(ctx)
is(#list, 2, "sda and vdb: a partition and an idle ram disk left out")
is(list[1].name .. "," .. list[2].name, "sda,vdb", "sorted by name")
is(list[1].info.rotational, true, "with its /sys/block info")
local nope, why = disks.active({ proc = { diskstats = function() return nil, "no diskstats" end } })
is(nope == nil and why, "no diskstats", "no diskstats: nil and why")
