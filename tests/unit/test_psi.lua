-- Cases for checks/lib/psi.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local psi = require("psi")

local is = tap.is

-- A series of /proc/pressure/* samples with the methods of ctx.proc.pressure()'s:
-- seconds() from the first to the last sample, delta(f) last - first (nil without f),
-- rates(f) per interval in units per second.
local function series(samples)
  local s = {}
  function s.seconds(_) return #samples < 2 and 0 or samples[#samples].t - samples[1].t end
  function s.delta(_, f)
    if #samples < 2 or not samples[1][f] then return nil end
    return samples[#samples][f] - samples[1][f]
  end
  function s.rates(_, f)
    local r = {}
    for i = 2, #samples do r[i - 1] = (samples[i][f] - samples[i - 1][f]) / (samples[i].t - samples[i - 1].t) end
    return r
  end
  return s
end

is(psi.pct(500000, 10), 5.0, "0.5 s stalled of 10 s: 5%")
is(psi.pct(0, 10), 0.0, "no stall: 0%")

-- cpu some_total from a loaded 2-CPU host: 1.2 s then 0.8 s stalled in two 1 s intervals
local cpu = series { { t = 0, some_total = 7340000 }, { t = 1, some_total = 8540000 }, { t = 2, some_total = 9340000 } }
is(psi.window_pct(cpu, "some_total"), 100.0, "2 s stalled over 2 s: 100%")
local per = psi.interval_pcts(cpu, "some_total")
is(#per, 2, "one % per interval")
is(per[1], 120.0, "the first interval: 120% (more stall than time: several tasks)")
is(per[2], 80.0, "the second interval: 80%")
is(psi.window_pct(cpu, "full_total"), nil, "cpu has no full_total in this series: nil")
is(psi.window_pct(series { { t = 0, some_total = 5 } }, "some_total"), nil, "one sample spans no time: nil")
is(psi.window_pct(nil, "some_total"), nil, "no series (the kernel has no PSI): nil")

-- a cgroup's memory.pressure, first and last sample of the window
local cg = { first = { t = 100, some_total = 1000000 }, last = { t = 110, some_total = 3000000 } }
is(psi.span_pct(cg, "some_total"), 20.0, "a cgroup that stalled 2 s of 10 s: 20%")
is(psi.span_pct({ first = cg.first, last = cg.first }, "some_total"), nil, "first and last the same sample: nil")
is(psi.span_pct({ first = {}, last = cg.last }, "some_total"), nil, "no some_total in the first sample: nil")
is(psi.span_pct(nil, "some_total"), nil, "no pressure file (cgroup v1): nil")
